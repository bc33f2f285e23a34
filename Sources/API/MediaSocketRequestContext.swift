import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The WebSocket routes' request context: Hummingbird's, plus the connection's channel, so a
/// media stream can write its paced frames straight into the channel from the media tick on the
/// event loop — no task switch per 20 ms frame (see `MediaStreamSocketLeg.Socket`).
struct MediaSocketRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}
