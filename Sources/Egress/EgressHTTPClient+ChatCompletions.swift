import AsyncHTTPClient
import Foundation
import NIOCore
import Tools

extension EgressHTTPClient {
    /// One `POST {base}/chat/completions` with the key as a bearer token: the post-call analysis
    /// and a warm transfer's briefing both ask the configured model this way.
    public func chatCompletion(_ endpoint: (url: String, key: String, model: String), body: JSONValue, timeout: TimeAmount) async throws -> Response {
        var request = HTTPClientRequest(url: endpoint.url + "/chat/completions")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(endpoint.key)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body.serialized))
        return try await send(request, timeout: timeout)
    }
}
