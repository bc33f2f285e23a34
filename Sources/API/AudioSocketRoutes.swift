import Calls
import Foundation
import Hummingbird
import NIOCore

/// `POST /api/audiosocket/calls`: the dialplan announces an AudioSocket call before it connects
/// and gets the UUID to connect with (`AudioSocket(${uuid},host:port)`). AudioSocket carries only
/// that UUID, so this is how the call gets its numbers (and its inbound route), and, with
/// `audiosocket.require_binding`, how a connection proves the API's token was behind it.
extension VoiceBridgeServer {
    func addAudioSocketRoutes(to api: RouterGroup<BasicRequestContext>) {
        // `{"from": "+1…", "to": "+1…"}` in the body or `?from=…&to=…` (what a dialplan's CURL()
        // writes most easily), both optional; `?format=text` answers the bare UUID.
        api.post("audiosocket/calls") { request, _ -> Response in
            guard let bindings = self.calls?.audioSocketBindings else {
                throw ProblemDetails(.notFound, detail: "AudioSocket is off: set audiosocket.listen")
            }
            let hasBody = (request.headers[.contentLength].flatMap(Int.init) ?? 0) > 0 || request.headers[.transferEncoding] != nil
            let body = hasBody ? try await Self.decodeJSONBody(request, as: AudioSocketCallBody.self, limit: 4 * 1024) : AudioSocketCallBody()
            let query = request.uri.queryParameters
            var problems: [ProblemDetails.InvalidField] = []
            func number(_ field: String, _ raw: String?) -> String? {
                guard let raw, !raw.isEmpty else { return nil }
                guard let number = OutboundCallRequest.normalize(number: raw) else {
                    problems.append(.init(field: field, message: "is not a phone number (3 to 20 digits, optionally starting with +)"))
                    return nil
                }
                return number
            }
            let caller = number("from", body.from ?? query.get("from"))
            let callee = number("to", body.to ?? query.get("to"))
            let format = query.get("format") ?? "json"
            if !["json", "text"].contains(format) { problems.append(.init(field: "format", message: "is json or text")) }
            guard problems.isEmpty else { throw ProblemDetails(.unprocessableContent, detail: "invalid AudioSocket call", errors: problems) }
            let uuid: UUID
            do {
                uuid = try bindings.bind(caller: caller ?? "unknown", callee: callee ?? "")
            } catch {
                throw ProblemDetails(.tooManyRequests, detail: "\(error)")
            }
            let id = uuid.uuidString.lowercased()
            if format == "text" {
                return Response(status: .created, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: id)))
            }
            let json = try JSONSerialization.data(withJSONObject: ["uuid": id, "expires_in_seconds": bindings.lifetime.components.seconds], options: [.sortedKeys])
            return Response(status: .created, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: json)))
        }
    }
}

struct AudioSocketCallBody: Decodable {
    var from: String?
    var to: String?
}
