import Bridge
import Calls
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// The WebSocket side of the server: media streams (`GET /twilio/stream`, `/telnyx/stream`,
/// `/plivo/stream`, `/exotel/stream` — a stream in that dialect becomes a call) and the event
/// stream (`GET /api/events`), decided on the upgrade request's head.
///
/// Not through Hummingbird's WebSocket router: in hummingbird-websocket 2.8.1 the router's request
/// context holds a `WebSocketHandlerReference` whose box holds the context again, a reference
/// cycle nothing breaks. Every upgraded connection — its closed channel, receive buffers and all,
/// 10–30 KB for a media stream — stayed in memory for the life of the server (the soak test's
/// memory growth, #20).
extension VoiceBridgeServer {
    typealias WebSocketHandler = WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>

    /// What a WebSocket request asks for, by its path.
    enum WebSocketEndpoint {
        case mediaStream(MediaStreamDialect)
        /// `/browser/stream`: the dashboard's "Try it", opened with an API token.
        case browserCall
        case events
        /// `/api/outbound/{id}/listen`: a supervisor listening to a live call.
        case listen(callID: String)

        static let all: [WebSocketEndpoint] = [.events, .browserCall] + MediaStreamDialect.providers.map { .mediaStream($0) }

        /// The route's path, without the leading slash.
        var path: String {
            switch self {
            case .mediaStream(let dialect): dialect.path
            case .browserCall: MediaStreamDialect.browser.path
            case .events: "api/events"
            case .listen(let id): "api/outbound/\(id)/listen"
            }
        }

        init?(path: String) {
            let path = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
            if let id = path.wholeMatch(of: /\/api\/outbound\/((?:ob|ib|br)-[0-9a-f]{8})\/listen/)?.1 {
                self = .listen(callID: String(id))
                return
            }
            guard let endpoint = Self.all.first(where: { "/" + $0.path == path }) else { return nil }
            self = endpoint
        }
    }

    /// Upgrades a request for one of the WebSocket endpoints that may have it; anything else is
    /// refused (Hummingbird answers 400 and closes).
    func shouldUpgrade(_ head: HTTPRequest, channel: any Channel) -> ShouldUpgradeResult<WebSocketHandler> {
        // The parser read a head: the connection guard's header deadline is met.
        channel.triggerUserOutboundEvent(HTTPConnectionGuard.Progress.headParsed, promise: nil)
        switch upgradeDecision(head, channel: channel) {
        case .dontUpgrade: return .dontUpgrade
        case .upgrade(let headers, let handler):
            return .upgrade(headers) { inbound, outbound, context in
                WebSocketFrameProgress.install(on: channel)
                try await handler(inbound, outbound, context)
            }
        }
    }

    private func upgradeDecision(_ head: HTTPRequest, channel: any Channel) -> ShouldUpgradeResult<WebSocketHandler> {
        let request = Request(head: head, body: .init(buffer: ByteBuffer()))
        guard head.method == .get, let endpoint = WebSocketEndpoint(path: request.uri.path),
              boundary.problem(authority: head.authority, origin: head.headerFields[.origin]) == nil else { return .dontUpgrade }
        switch endpoint {
        case .mediaStream(let dialect):
            if dialect == .twilio {
                guard (try? checkSignature(request, url: TwiML.webSocketBase(publicBase(request)) + "/twilio/stream")) != nil else { return .dontUpgrade }
            }
            guard let calls else { return .dontUpgrade }
            switch streamAccess.decide(dialect, presentedToken: request.uri.queryParameters.get("token")) {
            case .refuse(let reason):
                logger.info("media stream refused", metadata: ["dialect": "\(dialect.rawValue)", "reason": "\(reason)"])
                return .dontUpgrade
            case .accept(let signed):
                return .upgrade([:]) { inbound, outbound, _ in
                    await self.serveMediaStream(dialect: dialect, opener: .provider(signed: signed), inbound: inbound, outbound: outbound, channel: channel, calls: calls)
                }
            }
        case .browserCall:
            guard let who = try? access.identity(of: request), let calls else { return .dontUpgrade }
            return .upgrade([:]) { inbound, outbound, _ in
                await self.serveMediaStream(dialect: .browser, opener: .browser(identity: who), inbound: inbound,
                                            outbound: outbound, channel: channel, calls: calls)
            }
        case .listen(let callID):
            guard let who = try? access.identity(of: request), let calls,
                  let side = ListenSide(rawValue: request.uri.queryParameters.get("side") ?? "mixed") else { return .dontUpgrade }
            return .upgrade([:]) { inbound, outbound, _ in
                await self.serveListener(callID: callID, side: side, who: APIAccess.label(who), manager: calls.manager, inbound: inbound, outbound: outbound)
            }
        case .events:
            guard (try? access.identity(of: request)) != nil else { return .dontUpgrade }
            let sinceText = request.uri.queryParameters.get("since")
            let since = sinceText.flatMap { Int64($0) }
            if sinceText != nil, since == nil { return .dontUpgrade }
            return .upgrade([:]) { inbound, outbound, _ in
                do {
                    try await EventStream(store: self.store, logger: self.logger).run(since: since, outbound: outbound, inbound: inbound)
                } catch {
                    self.logger.debug("event stream ended", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
