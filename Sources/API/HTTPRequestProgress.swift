import HTTPTypes
import NIOCore
import NIOHTTPTypes
import NIOWebSocket

/// After the HTTP parser: tells `HTTPConnectionGuard` when the parser read a request's head and
/// its end, and when the response's end was written, so the guard's deadlines follow the parser's
/// view of the connection rather than the bytes'.
final class HTTPRequestProgress: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: context.triggerUserOutboundEvent(HTTPConnectionGuard.Progress.headParsed, promise: nil)
        case .end: context.triggerUserOutboundEvent(HTTPConnectionGuard.Progress.requestEnded, promise: nil)
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let ended = if case .end = unwrapOutboundIn(data) { true } else { false }
        context.write(data, promise: promise)
        if ended { context.triggerUserOutboundEvent(HTTPConnectionGuard.Progress.responseEnded, promise: nil) }
    }
}

/// After the WebSocket frame decoder: each whole frame tells `HTTPConnectionGuard`, which closes a
/// connection whose frame began but did not become whole in time.
final class WebSocketFrameProgress: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.triggerUserOutboundEvent(HTTPConnectionGuard.Progress.frameCompleted, promise: nil)
        context.fireChannelRead(data)
    }

    /// Where a handler that takes frames goes (`MediaFrameReader`): after this one, so that every
    /// whole frame is seen here first; the decoder where this one is not installed.
    static func insertionPoint(in pipeline: ChannelPipeline.SynchronousOperations) throws -> any ChannelHandler {
        if let progress = try? pipeline.handler(type: WebSocketFrameProgress.self) { return progress }
        return try pipeline.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
    }

    /// Puts itself after the frame decoder of an upgraded `channel`, and tells the guard the
    /// connection is a WebSocket now. Runs on the channel's loop, before the route's handler does
    /// (which may put its own frame reader after this one).
    static func install(on channel: any Channel) {
        channel.eventLoop.execute {
            channel.triggerUserOutboundEvent(HTTPConnectionGuard.Progress.upgraded, promise: nil)
            let pipeline = channel.pipeline.syncOperations
            guard let decoder = try? pipeline.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self) else { return }
            try? pipeline.addHandler(WebSocketFrameProgress(), position: .after(decoder))
        }
    }
}
