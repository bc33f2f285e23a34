import Bridge
import NIOCore
import NIOWebSocket

/// Reads a media stream's text frames (and Vonage's binary audio) on the connection's event loop
/// and hands them to the leg — instead of through Hummingbird's async inbound stream and the route's reader task,
/// one task switch less for each of the fifty messages a second. Everything else (control
/// frames, another dialect's binary and fragmented messages, the close handshake) passes on to
/// Hummingbird.
///
/// It can only be added after Hummingbird's upgrade, when the first frames (`connected`, `start`)
/// may already wait in the async stream. Order is kept with a sentinel: when added, it sends a
/// binary frame carrying `token` down that stream and holds what it reads until the route's reader
/// has reached the token and calls `release()`. Frames before the token are handed over by the
/// reader, frames after it by this handler.
final class MediaFrameReader: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    let token: ByteBuffer
    private let leg: MediaStreamSocketLeg
    /// Frames read before `release()` (`binary`: Vonage's audio); nil afterwards.
    private var held: [(data: ByteBuffer, binary: Bool)]? = []
    private var stopped = false
    /// A frame went on to Hummingbird since the last read-complete: it needs that one too.
    private var passedOn = false
    /// The reader reaches the token within milliseconds (a second of media is 50 frames); frames
    /// beyond this many before then are dropped, so a flooding client cannot grow the server.
    static let maximumHeld = 500

    /// Frames waiting for `release()`.
    var heldCount: Int { held?.count ?? 0 }

    init(leg: MediaStreamSocketLeg) {
        self.leg = leg
        var token = ByteBuffer()
        token.writeString("voicebridge-media-reader:")
        for _ in 0..<2 { token.writeInteger(UInt64.random(in: .min ... .max)) }
        self.token = token
    }

    func handlerAdded(context: ChannelHandlerContext) {
        context.fireChannelRead(wrapInboundOut(WebSocketFrame(fin: true, opcode: .binary, data: token)))
        context.fireChannelReadComplete()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let binary = frame.opcode == .binary && leg.dialect.carriesBinaryAudio
        guard frame.fin, frame.opcode == .text || binary else {
            passedOn = true
            context.fireChannelRead(data)
            return
        }
        let bytes = frame.unmaskedData
        if held != nil {
            if held!.count < Self.maximumHeld { held!.append((bytes, binary)) }
            return
        }
        deliver(bytes, binary: binary)
    }

    /// Passed on only after frames that were: a read-complete makes Hummingbird's async-channel
    /// handler deliver what it buffered, and with media taken here there is nothing to deliver.
    func channelReadComplete(context: ChannelHandlerContext) {
        guard passedOn else { return }
        passedOn = false
        context.fireChannelReadComplete()
    }

    /// The route's reader has handed over everything before the token. Call on the event loop.
    func release() {
        let pending = held ?? []
        held = nil
        for frame in pending { deliver(frame.data, binary: frame.binary) }
    }

    private func deliver(_ bytes: ByteBuffer, binary: Bool) {
        guard !stopped else { return }
        if binary {
            leg.receive(audio: bytes)
        } else if leg.receive(bytes) == .stopped {
            stopped = true
        }
    }
}
