import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import TraceContext
import Tracing

// The engines' and a bot's requests carry the call's trace (`TraceParent.current`), as the
// egress client's do: an HTTP request, as a client span of its own where this node traces the
// call; a WebSocket's upgrade request (the connection lives as long as the call: no span).

extension HTTPClientRequest {
    /// Starts this request's client span (`RequestSpan`) when this node traces the call, and adds
    /// the `traceparent` the request sends: its span's, else the call's if the call is traced.
    /// End the span when the answer has been read. `name` and `attributes` as `RequestSpan.start`'s.
    public mutating func startSpan(name: String? = nil, attributes: SpanAttributes = [:]) -> RequestSpan? {
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
