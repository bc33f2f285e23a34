import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import NIOCore
import TraceContext
import Tracing

// The engines' and a bot's requests carry the call's trace (`TraceParent.current`), as the
// egress client's do: an HTTP request, as a client span of its own where this node traces the
// call; a WebSocket's upgrade request (the connection lives as long as the call: no span).

extension HTTPClientRequest {
    /// Sends this request on the shared client and hands the answer to `read`, the whole exchange
    /// a client span of its own (`RequestSpan`, ended once `read` is done: a streamed answer is
    /// timed to its end) when this node traces the call. `name` and `attributes` as `RequestSpan.start`'s.
    func executeTraced<T>(timeout: TimeAmount, name: String? = nil, attributes: SpanAttributes = [:],
                          _ read: (HTTPClientResponse) async throws -> T) async throws -> T {
        var request = self
        let span = request.startSpan(name: name, attributes: attributes)
        var status: Int?
        defer { span?.end(status: status) }
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        status = Int(response.status.code)
        return try await read(response)
    }

    /// Starts this request's client span (`RequestSpan`) when this node traces the call, and adds
    /// the `traceparent` the request sends: its span's, else the call's if the call is traced.
    mutating func startSpan(name: String?, attributes: SpanAttributes) -> RequestSpan? {
        var span: RequestSpan?
        if TraceParent.recorder != nil, let target = URLComponents(string: url), let host = target.host {
            let port = target.port ?? (target.scheme == "https" ? 443 : 80)
            span = RequestSpan.start(method: method.rawValue, host: host, port: port, name: name, attributes: attributes)
        }
        if let trace = span?.traceParent ?? TraceParent.current { headers.replaceOrAdd(name: TraceParent.field, value: trace.value) }
        return span
    }
}

extension WebSocketClientConfiguration {
    /// Adds the current call's `traceparent` to the upgrade request, if the call is traced.
    public mutating func addTraceParent() {
        guard let trace = TraceParent.headerForCurrent else { return }
        var fields = additionalHeaders
        fields.append(.init(name: .init(trace.name)!, value: trace.value))   // a constant, valid name
        additionalHeaders = fields
    }
}
