import AsyncHTTPClient
import HummingbirdWSClient
import TraceContext

// The engines' and a bot's requests carry the call's trace (`TraceParent.current`), as the
// egress client's do: an HTTP request, and a WebSocket's upgrade request.

extension HTTPClientRequest {
    /// Adds the current call's `traceparent`, if the call is traced.
    public mutating func addTraceParent() {
        if let trace = TraceParent.headerForCurrent { headers.replaceOrAdd(name: trace.name, value: trace.value) }
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
