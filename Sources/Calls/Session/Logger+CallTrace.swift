import Logging
import TraceContext

extension Logger.MetadataProvider {
    /// A traced call's trace id and its attempt's span id (`trace_id`, `span_id`) on every log line
    /// written inside the call's tasks — the session's, the engine's, a tool's — and inside the
    /// outbox work done for it later, wherever `TraceParent.current` is set: a line found in the
    /// log finds its trace, and the other way round. The server bootstraps its logging with it.
    public static let callTrace = Logger.MetadataProvider {
        guard let trace = TraceParent.current else { return [:] }
        return ["trace_id": "\(trace.traceID)", "span_id": "\(trace.parentSpanID)"]
    }
}
