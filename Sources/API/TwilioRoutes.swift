import Bridge
import Calls
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging

/// Twilio: the voice webhook (TwiML that connects the call's media stream here) and the media
/// stream WebSocket, which becomes an inbound call on the same machinery as a SIP call.
extension VoiceBridgeServer {
    /// The public base URL Twilio reaches us at: configured, or from the request's Host.
    func publicBase(_ request: Request) -> String {
        if let url = config.http.publicURL { return url.hasSuffix("/") ? String(url.dropLast()) : url }
        let host = request.head.authority ?? "\(config.http.host):\(config.http.port)"
        return "http://\(host)"
    }

    func addTwilioRoutes(to router: Router<BasicRequestContext>) {
        router.post("twilio/voice") { request, context -> Response in
            let form = try await self.formParameters(request, context)
            try self.checkSignature(request, url: self.publicBase(request) + "/twilio/voice", parameters: form)
            let values = Dictionary(form, uniquingKeysWith: { first, _ in first })
            let base = self.publicBase(request).replacingOccurrences(of: "https://", with: "wss://").replacingOccurrences(of: "http://", with: "ws://")
            let parameters = [("from", values["From"] ?? ""), ("to", values["To"] ?? ""), ("call_sid", values["CallSid"] ?? "")]
                .map { "<Parameter name=\"\($0.0)\" value=\"\(Self.xmlEscape($0.1))\"/>" }.joined()
            let twiml = #"<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="\#(base)/twilio/stream">\#(parameters)</Stream></Connect></Response>"#
            return Response(status: .ok, headers: [.contentType: "text/xml; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: twiml)))
        }
        router.post("twilio/status") { request, context -> HTTPResponse.Status in
            let form = try await self.formParameters(request, context)
            try self.checkSignature(request, url: self.publicBase(request) + "/twilio/status", parameters: form)
            let values = Dictionary(form, uniquingKeysWith: { first, _ in first })
            if let sid = values["CallSid"], let call = try self.store.call(externalID: sid) {
                try self.store.appendEvent(callID: call.outboundId, type: "twilio_stream_status",
                                           payload: ["stream_event": values["StreamEvent"] ?? "", "stream_sid": values["StreamSid"] ?? "", "error": values["StreamError"] ?? ""])
            }
            return .noContent
        }
    }

    func formParameters(_ request: Request, _ context: BasicRequestContext) async throws -> [(String, String)] {
        let body = try await request.body.collect(upTo: 64 * 1024)
        let text = String(buffer: body)
        return text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0) }
            return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
        }
    }

    /// With an auth token configured, a missing or forged signature is refused (403) before anything is created.
    func checkSignature(_ request: Request, url: String, parameters: [(String, String)] = []) throws {
        guard let token = config.twilio.authToken else { return }
        guard TwilioSignature.isValid(request.headers[.init("X-Twilio-Signature")!], url: url, parameters: parameters, token: token) else {
            throw HTTPError(.forbidden, message: "invalid X-Twilio-Signature")
        }
    }

    static func xmlEscape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The WebSocket routes: `GET /twilio/stream` (a Twilio media stream becomes an inbound call)
    /// and `GET /api/events` (the event stream).
    func webSocketRouter() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.ws("twilio/stream") { request, _ in
            do {
                let base = self.publicBase(request).replacingOccurrences(of: "https://", with: "wss://").replacingOccurrences(of: "http://", with: "ws://")
                try self.checkSignature(request, url: base + "/twilio/stream")
            } catch {
                throw HTTPError(.forbidden, message: "invalid X-Twilio-Signature")
            }
            guard self.calls != nil else { return .dontUpgrade }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, _ in
            guard let calls = self.calls else { return }
            let leg = TwilioStreamLeg(scheduler: calls.scheduler, logger: self.logger,
                                      write: { try await outbound.write(.text($0)) },
                                      close: { try? await outbound.close(.normalClosure, reason: "call ended") })
            try await withThrowingTaskGroup(of: Void.self) { group in
                var messages = inbound.messages(maxSize: 256 * 1024).makeAsyncIterator()
                var answering = false
                do {
                    while let message = try await messages.next() {
                        guard case .text(let text) = message else {
                            self.logger.warning("binary frame on a media stream ignored", metadata: ["stream": "\(leg.streamSid)"])
                            continue
                        }
                        if leg.receive(text) == .stopped { break }
                        if !answering, let start = leg.start {
                            answering = true
                            let caller = start.customParameters["from"].flatMap { $0.isEmpty ? nil : $0 } ?? "unknown"
                            let callee = start.customParameters["to"] ?? ""
                            group.addTask { await calls.manager.answer(stream: leg, caller: caller, callee: callee, externalID: start.callSid) }
                        }
                    }
                } catch {
                    self.logger.warning("media stream closed", metadata: ["stream": "\(leg.streamSid)", "error": "\(error)"])
                }
                leg.finish()
                try await group.waitForAll()
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
