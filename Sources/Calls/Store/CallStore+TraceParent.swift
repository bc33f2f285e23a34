import Foundation
import TraceContext
import Tracing

extension CallStore {
    /// Runs `body` — a call's later work: its webhooks, its post-call analysis, its after-call
    /// tools, each sent from an outbox long after the call's tasks are gone — in the trace the call
    /// keeps (`CallRecord.traceParent`), so the requests it makes carry it. Where this node traces
    /// (`tracer`), that work is spans of the call's trace: a span `name` (when given) around
    /// `body`, and each request a client span. No call, not traced, or not readable: `body`
    /// outside any trace.
    func continuingTrace<T>(ofCall id: String?, tracer: (any Tracer)?, as name: String? = nil, attributes: SpanAttributes = [:],
                            _ body: () async -> T) async -> T {
        var kept: TraceParent?
        if let id {
            let stored = try? await sqlRead { try $0.scalar(String.self, "SELECT trace_parent FROM calls WHERE outbound_id = ?", [.text(id)]) }
            kept = stored.flatMap { $0 }.flatMap(TraceParent.init)
        }
        guard let tracer, kept != nil else { return await TraceParent.$current.withValue(kept) { await body() } }
        // The outboxes run on the wall clock: their attempts are real requests, even after a test run's call.
        return await TraceParent.$recorder.withValue(TraceParent.Recorder(tracer: tracer, now: Date.init)) {
            await TraceParent.$current.withValue(kept) {
                guard let name else { return await body() }
                return await TraceParent.withSpan(name, attributes: attributes, body)
            }
        }
    }

    /// Keeps `traceParent` as the call's trace unless it has one already; returns the one it keeps.
    /// For a call stored without one (a campaign's, one queued while tracing was off): its first
    /// traced attempt gives it one, which later attempts — on any node — then continue.
    func keepTraceParent(_ traceParent: TraceParent, forCall id: String) async throws -> TraceParent {
        try await sqlWrite { sql in
            try sql.execute("UPDATE calls SET trace_parent = ? WHERE outbound_id = ? AND trace_parent IS NULL", traceParent.value, id)
            return try sql.scalar(String.self, "SELECT trace_parent FROM calls WHERE outbound_id = ?", [.text(id)])
        }.flatMap(TraceParent.init) ?? traceParent
    }
}
