import Foundation
import NIOCore
import NIOPosix

/// Asterisk's side of an AudioSocket connection, written from the protocol's published description
/// (docs.asterisk.org, AudioSocket): it connects, sends the call's UUID, then audio as signed linear
/// 16-bit little-endian at 8 kHz in 20 ms messages, and reads what the server sends. Every message:
/// one kind byte, a 16-bit big-endian length, the payload. It also misbehaves on request: raw
/// bytes, a message cut off, silence, or a socket it never closes.
public final class AudioSocketPeer: Sendable {
    /// One message from the server.
    public struct Message: Sendable, Equatable {
        public let kind: UInt8
        public let payload: [UInt8]

        /// The samples of an audio message.
        public var samples: [Int16] {
            stride(from: 0, to: payload.count - 1, by: 2).map { Int16(bitPattern: UInt16(payload[$0]) | UInt16(payload[$0 + 1]) << 8) }
        }
    }

    public struct Inbox: Sendable, CustomStringConvertible {
        public var messages: [Message] = []
        /// The server closed the connection.
        public var closed = false
        var pending: [UInt8] = []
        public var description: String { "\(messages.count) messages (kinds \(Set(messages.map(\.kind)).sorted())), closed: \(closed)" }
    }

    /// What the server sent so far, and whether it closed.
    public let inbox: Locked<Inbox>
    private let channel: any Channel

    private init(channel: any Channel, inbox: Locked<Inbox>) {
        self.channel = channel
        self.inbox = inbox
    }

    /// Connected to the server at 127.0.0.1:`port`.
    public static func connect(port: Int) async throws -> AudioSocketPeer {
        let inbox = Locked(Inbox())
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Reader(inbox: inbox)) } }
            .connect(host: "127.0.0.1", port: port).get()
        return AudioSocketPeer(channel: channel, inbox: inbox)
    }

    /// Waits until what was received satisfies `condition`.
    public func wait(for what: String, timeout: Duration = .seconds(20), until condition: @escaping @Sendable (Inbox) -> Bool) async throws {
        try await inbox.wait(for: what, timeout: timeout, until: condition)
    }

    /// One message as Asterisk frames it.
    public func send(kind: UInt8, payload: [UInt8]) async throws {
        try await sendRaw([kind, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload)
    }

    /// Bytes as they are, framed or not.
    public func sendRaw(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
    }

    /// The call's UUID, Asterisk's first message: 16 bytes, binary.
    public func sendUUID(_ uuid: UUID) async throws {
        try await send(kind: 0x01, payload: withUnsafeBytes(of: uuid.uuid) { Array($0) })
    }

    /// Audio, signed linear 16-bit little-endian at 8 kHz.
    public func sendAudio(_ samples: [Int16]) async throws {
        try await send(kind: 0x10, payload: samples.flatMap { [UInt8(truncatingIfNeeded: UInt16(bitPattern: $0)), UInt8(UInt16(bitPattern: $0) >> 8)] })
    }

    /// Audio paced as a channel reads it: a 20 ms message every 20 ms of `clock`.
    public func play(_ samples: [Int16]) async throws {
        let clock = ContinuousClock()
        var next = clock.now
        for start in stride(from: 0, to: samples.count, by: 160) {
            try await sendAudio(Array(samples[start..<min(start + 160, samples.count)]))
            next = next.advanced(by: .milliseconds(20))
            try await clock.sleep(until: next)
        }
    }

    /// The hang-up message, then the socket closed.
    public func hangUp() async throws {
        try await send(kind: 0x00, payload: [])
        close()
    }

    public func close() {
        channel.close(promise: nil)
    }

    private final class Reader: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let inbox: Locked<Inbox>

        init(inbox: Locked<Inbox>) { self.inbox = inbox }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
            inbox.withLock { inbox in
                inbox.pending += bytes
                while inbox.pending.count >= 3 {
                    let length = Int(inbox.pending[1]) << 8 | Int(inbox.pending[2])
                    guard inbox.pending.count >= 3 + length else { break }
                    inbox.messages.append(Message(kind: inbox.pending[0], payload: Array(inbox.pending[3..<(3 + length)])))
                    inbox.pending.removeFirst(3 + length)
                }
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            inbox.withLock { $0.closed = true }
        }
    }
}
