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
            // An exposed server (API tokens) never writes a URL it took from the request's Host.
            guard self.config.http.publicURL != nil || self.config.api.tokens.isEmpty else {
                throw HTTPError(.serviceUnavailable, message: "set http.public_url: a server with API tokens builds Twilio's stream URL only from it")
            }
            let values = Dictionary(form, uniquingKeysWith: { first, _ in first })
            let parameters = [("from", values["From"] ?? ""), ("to", values["To"] ?? ""), ("call_sid", values["CallSid"] ?? "")]
            let twiml = #"<?xml version="1.0" encoding="UTF-8"?>"# + TwiML.connectStream(publicBase: self.publicBase(request), parameters: parameters)
            return Response(status: .ok, headers: [.contentType: "text/xml; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: twiml)))
        }
        router.post("twilio/status") { request, context -> HTTPResponse.Status in
            let form = try await self.formParameters(request, context)
            try self.checkSignature(request, url: self.publicBase(request) + "/twilio/status", parameters: form)
            let values = Dictionary(form, uniquingKeysWith: { first, _ in first })
            if let sid = values["CallSid"], let call = try await self.store.call(externalID: sid) {
                try await self.store.appendEvent(callID: call.outboundId, type: "twilio_stream_status",
                                           payload: ["stream_event": values["StreamEvent"] ?? "", "stream_sid": values["StreamSid"] ?? "", "error": values["StreamError"] ?? ""])
            }
            return .noContent
        }
    }

    /// Twilio as the carrier: the status callbacks and the answering-machine verdicts of the calls
    /// it places for us, each signed over its URL with the call's id in the query.
    func addTwilioCarrierRoutes(to router: Router<BasicRequestContext>) {
        router.post("twilio/call-status") { request, context -> HTTPResponse.Status in
            let (id, values) = try await self.signedCarrierCallback(request, context, path: "/twilio/call-status")
            let status = values["CallStatus"] ?? ""
            // A warm transfer's call to the person reports under the caller's call.
            let person = id.hasSuffix(CallManager.personLegSuffix)
            try? await self.store.appendEvent(callID: person ? String(id.dropLast(CallManager.personLegSuffix.count)) : id,
                                              type: person ? "twilio_transfer_status" : "twilio_call_status",
                                        payload: ["call_status": status, "call_sid": values["CallSid"] ?? "", "sequence": values["SequenceNumber"] ?? ""])
            await self.calls?.manager.twilioStatus(outboundID: id, callSid: values["CallSid"] ?? "", status: status, sequence: Int(values["SequenceNumber"] ?? "") ?? 0)
            return .noContent
        }
        router.post("twilio/amd") { request, context -> HTTPResponse.Status in
            let (id, values) = try await self.signedCarrierCallback(request, context, path: "/twilio/amd")
            await self.calls?.manager.twilioMachineDetection(outboundID: id, verdict: values["AnsweredBy"] ?? "unknown")
            return .noContent
        }
    }

    /// A callback about a call we placed through Twilio: only with `twilio.auth_token` set (which
    /// `carrier: twilio` requires), so only Twilio can send one; otherwise the route is not there.
    private func signedCarrierCallback(_ request: Request, _ context: BasicRequestContext, path: String) async throws -> (String, [String: String]) {
        guard config.twilio.authToken != nil else { throw HTTPError(.notFound, message: "Twilio is not configured (twilio.auth_token)") }
        let form = try await formParameters(request, context)
        guard let id = request.uri.queryParameters.get("outbound_id") else { throw HTTPError(.badRequest, message: "outbound_id is missing") }
        try checkSignature(request, url: publicBase(request) + path + "?" + (request.uri.query ?? ""), parameters: form)
        return (id, Dictionary(form, uniquingKeysWith: { first, _ in first }))
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
}
