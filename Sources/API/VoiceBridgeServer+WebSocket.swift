import Bridge
import Calls
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging

/// The WebSocket side of the server: Twilio media streams and the event stream.
extension VoiceBridgeServer {
    /// The WebSocket routes: `GET /twilio/stream`, `/telnyx/stream`, `/plivo/stream`,
    /// `/exotel/stream` (a media stream in that dialect becomes a call) and `GET /api/events`
    /// (the event stream).
    func webSocketRouter() -> Router<MediaSocketRequestContext> {
        let router = Router(context: MediaSocketRequestContext.self)
        for dialect in MediaStreamDialect.allCases {
            router.ws(RouterPath(dialect.path)) { request, _ in
                if dialect == .twilio {
                    do {
                        try self.checkSignature(request, url: TwiML.webSocketBase(self.publicBase(request)) + "/twilio/stream")
                    } catch {
                        throw HTTPError(.forbidden, message: "invalid X-Twilio-Signature")
                    }
                }
                guard self.calls != nil else { return .dontUpgrade }
                return .upgrade([:])
            } onUpgrade: { inbound, outbound, context in
                guard let calls = self.calls else { return }
                await self.serveMediaStream(dialect: dialect, inbound: inbound, outbound: outbound, channel: context.requestContext.channel, calls: calls)
            }
        }
        router.ws("api/events") { request, _ in
            do { _ = try self.access.identity(of: request) } catch { return .dontUpgrade }
            if let since = request.uri.queryParameters.get("since"), Int64(since) == nil { return .dontUpgrade }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let since = context.request.uri.queryParameters.get("since").flatMap { Int64($0) }
            do {
                try await EventStream(store: self.store, logger: self.logger).run(since: since, outbound: outbound, inbound: inbound)
            } catch {
                self.logger.debug("event stream ended", metadata: ["error": "\(error)"])
            }
        }
        return router
    }
}
