import Foundation
import NIOCore
import NIOPosix
import NIOWebSocket
import Synchronization

/// The load side of the media-stream benchmark: streams in a provider's dialect as plain NIO handlers on
/// one event loop of this process. No task per stream and no per-message hops, so a thousand
/// streams of load fit on one core next to the server being measured; the WebSocket framing
/// (and the client masking RFC 6455 requires) is SwiftNIO's.
final class MediaStreamLoadClient: Sendable {
    /// What one stream saw, readable from any thread.
    final class StreamLog: Sendable {
        let received = Atomic<Int>(0)
        let sent = Atomic<Int>(0)
        let marks = Atomic<Int>(0)
        /// Whether this stream keeps `clearWatch` (the barge-in suite's streams; the load suites'
        /// thousand streams read no clock per message).
        let watchesClear: Bool
        let clearWatch = Mutex(ClearWatch())
        /// Whether this stream keeps the agent's audio as its phone would play it (`played`):
        /// the barge-in suite's echoing caller returns it.
        let keepsAudio: Bool
        /// The agent's μ-law frames received and not yet played (a `clear` empties it, as
        /// Twilio drops what it holds), at most `heldFrames`.
        let played = Mutex<[[UInt8]]>([])
        static let heldFrames = 3000

        init(watchesClear: Bool = false, keepsAudio: Bool = false) {
            self.watchesClear = watchesClear
            self.keepsAudio = keepsAudio
        }

        /// The next frame the phone plays (nil: nothing left to play).
        func nextPlayed() -> [UInt8]? {
            played.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        }
    }

    /// When the server's first `clear` came, its last audio before it, and how much audio came after.
    struct ClearWatch: Sendable {
        var lastMediaBeforeClear: ContinuousClock.Instant?
        var cleared: ContinuousClock.Instant?
        var mediaAfterClear = 0
    }

    let index: Int
    let streamSid: String
    let dialect: LoadDialect
    let log: StreamLog
    let channel: any Channel
    private let handler: NIOLoopBound<StreamHandler>

    private init(index: Int, streamSid: String, dialect: LoadDialect, channel: any Channel, handler: StreamHandler, log: StreamLog) {
        self.index = index
        self.dialect = dialect
        self.streamSid = streamSid
        self.channel = channel
        self.log = log
        self.handler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
    }

    /// Connects, upgrades to WebSocket and sends the dialect's opening (`connected`, `start`).
    static func connect(index: Int, port: Int, dialect: LoadDialect = .twilio, watchesClear: Bool = false, keepsAudio: Bool = false,
                        group: any EventLoopGroup) async throws -> MediaStreamLoadClient {
        let sid = String(format: "MZ%032x", index)
        let log = StreamLog(watchesClear: watchesClear, keepsAudio: keepsAudio)
        let upgraded = group.next().makePromise(of: Void.self)
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let stream = StreamHandler(log: log, dialect: dialect)
                    try channel.pipeline.syncOperations.addHandler(HandshakeHandler(port: port, path: dialect.path, stream: stream, upgraded: upgraded))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await upgraded.futureResult.get()
        return try await channel.eventLoop.submit {
            let handler = try channel.pipeline.syncOperations.handler(type: StreamHandler.self)
            handler.streamSid = sid
            for message in dialect.opening(sid: sid, index: index) { handler.send(message) }
            return MediaStreamLoadClient(index: index, streamSid: sid, dialect: dialect, channel: channel, handler: handler, log: log)
        }.get()
    }

    /// One 20 ms `media` message. Call on the channel's event loop.
    func sendMedia(tick: Int, payload: String) {
        handler.value.send(dialect.media(sid: streamSid, tick: tick, payload: payload))
        log.sent.add(1, ordering: .relaxed)
    }

    /// `stop`. Call on the channel's event loop.
    func sendStop() {
        handler.value.send(dialect.stop(sid: streamSid))
    }

    /// Waits, woken by the echoes themselves, until all but `holdback` of the frames sent so far
    /// have come back, or `idleLimit` passes with none coming back; true when they did. Counted on
    /// the channel's event loop, so a send tick already under way there is in the count. The
    /// limit runs from the last echo, not the first look: a server that stalled behind a loaded
    /// machine still pacing out its queue is late, not losing frames (the soak, 5 Dec: one
    /// stream's last 43 frames still queued when a fixed 3 s ran out, none dropped).
    func echoes(allBut holdback: Int, idleLimit: TimeAmount) async -> Bool {
        let loop = channel.eventLoop
        let promise = loop.makePromise(of: Bool.self)
        loop.execute {
            self.handler.value.awaitEchoes(self.log.sent.load(ordering: .relaxed) - holdback, promise: promise)
            self.stopAwaitingEchoes(ifNoneIn: idleLimit, after: self.log.received.load(ordering: .relaxed))
        }
        return (try? await promise.futureResult.get()) ?? false
    }

    /// Settles the wait for echoes as not reached once `limit` goes by with the count still at
    /// `count`; after an echo, it looks again a `limit` later. On the channel's event loop.
    private func stopAwaitingEchoes(ifNoneIn limit: TimeAmount, after count: Int) {
        channel.eventLoop.scheduleTask(in: limit) {
            guard self.handler.value.isAwaitingEchoes else { return }
            let now = self.log.received.load(ordering: .relaxed)
            if now == count { self.handler.value.stopAwaitingEchoes() } else { self.stopAwaitingEchoes(ifNoneIn: limit, after: now) }
        }
    }

    /// Counts media coming back, echoes marks (as Twilio does once audio has played), answers pings.
    final class StreamHandler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        let log: StreamLog
        let dialect: LoadDialect
        var streamSid = ""
        private var context: ChannelHandlerContext?
        /// A wait for the media coming back to reach a count (`echoes(allBut:idleLimit:)`).
        private var echoWait: (count: Int, promise: EventLoopPromise<Bool>)?
        private let mediaPrefix: [UInt8]
        private let markPrefix: [UInt8]
        private static let nameKey = Array(#""name":""#.utf8)
        private static let clearPrefix = Array(#"{"event":"clear""#.utf8)

        init(log: StreamLog, dialect: LoadDialect) {
            self.log = log
            self.dialect = dialect
            mediaPrefix = dialect.mediaPrefix
            markPrefix = dialect.markPrefix
        }

        func handlerAdded(context: ChannelHandlerContext) { self.context = context }
        func handlerRemoved(context: ChannelHandlerContext) {
            self.context = nil
            stopAwaitingEchoes()
        }

        func awaitEchoes(_ count: Int, promise: EventLoopPromise<Bool>) {
            stopAwaitingEchoes()
            if log.received.load(ordering: .relaxed) >= count { promise.succeed(true) } else { echoWait = (count, promise) }
        }

        var isAwaitingEchoes: Bool { echoWait != nil }

        /// Settles a wait still open as not reached (its limit passed, or the connection went).
        func stopAwaitingEchoes() {
            echoWait?.promise.succeed(false)
            echoWait = nil
        }

        func send(_ text: String) {
            guard let context else { return }
            let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: context.channel.allocator.buffer(string: text))
            context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            switch frame.opcode {
            case .text:
                let bytes = frame.unmaskedData.readableBytesView
                if bytes.starts(with: mediaPrefix) {
                    let received = log.received.add(1, ordering: .relaxed).newValue
                    if let wait = echoWait, received >= wait.count {
                        echoWait = nil
                        wait.promise.succeed(true)
                    }
                    if log.watchesClear {
                        let now = ContinuousClock.now
                        log.clearWatch.withLock { $0.cleared == nil ? ($0.lastMediaBeforeClear = now) : ($0.mediaAfterClear += 1) }
                    }
                    if log.keepsAudio, let audio = Self.payload(bytes) {
                        log.played.withLock { if $0.count < StreamLog.heldFrames { $0.append(audio) } }
                    }
                } else if bytes.starts(with: markPrefix), let name = Self.markName(bytes) {
                    log.marks.add(1, ordering: .relaxed)
                    send(dialect.played(sid: streamSid, name: name))
                } else if log.watchesClear, bytes.starts(with: Self.clearPrefix) {
                    let now = ContinuousClock.now
                    log.clearWatch.withLock { $0.cleared = $0.cleared ?? now }
                    if log.keepsAudio { log.played.withLock { $0.removeAll() } }
                }
            case .ping:
                let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
                context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            case .connectionClose:
                context.close(promise: nil)
            default:
                break
            }
        }

        private static let payloadKey = Array(#""payload":""#.utf8)

        /// A media message's audio, base64-decoded.
        static func payload(_ bytes: ByteBufferView) -> [UInt8]? {
            stringValue(after: payloadKey, in: bytes).flatMap { Data(base64Encoded: Data($0)) }.map { [UInt8]($0) }
        }

        static func markName(_ bytes: ByteBufferView) -> String? {
            stringValue(after: nameKey, in: bytes).map { String(decoding: $0, as: UTF8.self) }
        }

        /// The bytes of the JSON string that follows `key` (`"name":"`), up to its closing quote.
        private static func stringValue(after key: [UInt8], in bytes: ByteBufferView) -> ByteBufferView.SubSequence? {
            guard let found = bytes.firstRange(of: key) else { return nil }
            let rest = bytes[found.upperBound...]
            return rest.firstIndex(of: UInt8(ascii: "\"")).map { rest[..<$0] }
        }
    }

    /// Sends the upgrade request, waits for `101`, then hands the connection to WebSocket framing.
    /// `upgraded` is settled exactly once: succeeded on the 101, failed on a refusal, an error, or a
    /// connection that closes or drops this handler first (a server under load may drop an upgrade it could not finish:
    /// a promise left pending would be a leak, which NIO traps on).
    final class HandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let port: Int
        private let path: String
        private let stream: StreamHandler
        private let upgraded: EventLoopPromise<Void>
        private var settled = false
        private var response: ByteBuffer?

        init(port: Int, path: String, stream: StreamHandler, upgraded: EventLoopPromise<Void>) {
            self.port = port
            self.path = path
            self.stream = stream
            self.upgraded = upgraded
        }

        func channelActive(context: ChannelHandlerContext) {
            let key = (0..<16).map { _ in UInt8.random(in: 0...255) }
            let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(Data(key).base64EncodedString())\r\nSec-WebSocket-Version: 13\r\n\r\n"
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request)), promise: nil)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var chunk = unwrapInboundIn(data)
            if response == nil { response = chunk } else { response!.writeBuffer(&chunk) }
            guard var buffer = response, let end = buffer.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
            let headLength = end.upperBound - buffer.readerIndex
            let head = buffer.readString(length: headLength) ?? ""
            guard head.hasPrefix("HTTP/1.1 101") else {
                fail(BenchError("WebSocket upgrade refused: \(head.prefix(40))"))
                context.close(promise: nil)
                return
            }
            do {
                try context.pipeline.syncOperations.addHandlers(
                    [ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 20)), WebSocketFrameEncoder(), stream], position: .after(self))
            } catch {
                fail(error)
                context.close(promise: nil)
                return
            }
            if buffer.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(buffer)) }
            response = nil
            settled = true
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            upgraded.succeed()
        }

        /// Every close ends here (close0 removes the handlers; an inactive event need not reach
        /// this one first: the trap came from this handler's deinit there).
        func handlerRemoved(context: ChannelHandlerContext) {
            fail(BenchError("the connection closed before the WebSocket upgrade was answered"))
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            fail(error)
            context.close(promise: nil)
        }

        private func fail(_ error: any Error) {
            guard !settled else { return }
            settled = true
            upgraded.fail(error)
        }
    }
}
