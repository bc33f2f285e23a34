import Tracing

/// One HTTP request the server makes inside traced work, as an OpenTelemetry client span
/// (semantic conventions: its name the method, or the operation's where a convention names it —
/// a model's `chat <model>`; `http.request.method`, `server.address`, `server.port`,
/// `http.response.status_code`; an error span when no answer came). Its `traceParent` is what
/// the request sends. No path and no query: a tool's URL may carry what the caller said.
public struct RequestSpan: Sendable {
    let span: any Span
    let recorder: TraceParent.Recorder
    public let traceParent: TraceParent?

    /// A span under the current work's, if this node traces it (`TraceParent.recorder`); nil otherwise.
    /// `name`: the span's, when not the method; `attributes`: what a convention adds (GenAI's).
    public static func start(method: String, host: String, port: Int, name: String? = nil, attributes: SpanAttributes = [:]) -> RequestSpan? {
        guard let recorder = TraceParent.recorder, let parent = TraceParent.current else { return nil }
        let tracer = recorder.tracer
        let span = tracer.startSpan(name ?? method, context: TraceParent.context(of: parent, on: tracer), ofKind: .client, at: recorder.timestamp())
        span.attributes = attributes
        span.attributes["http.request.method"] = method
        span.attributes["server.address"] = host
        span.attributes["server.port"] = port
        return RequestSpan(span: span, recorder: recorder, traceParent: TraceParent.of(span.context, on: tracer))
    }

    /// Ends the span with the answer's status (an error span from 500 on), or as failed (`status`
    /// nil) — unless the task was cancelled (a caller's barge-in, a shutdown): not an error.
    public func end(status: Int?) {
        if let status {
            span.attributes["http.response.status_code"] = status
            if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
        } else if Task.isCancelled {
            span.attributes["voicebridge.request.cancelled"] = true
        } else {
            span.setStatus(SpanStatus(code: .error, message: "no answer"))
        }
        span.end(at: recorder.timestamp())
    }
}
