import TraceContext

extension CallStore {
    /// The trace a call's later work continues — its webhooks, its post-call analysis, its
    /// after-call tools, each sent from an outbox long after the call's tasks are gone: the
    /// `traceparent` the call keeps (`CallRecord.traceParent`). Nil: no call, not traced, or not readable.
    func traceParent(ofCall id: String?) async -> TraceParent? {
        guard let id else { return nil }
        let stored = try? await sqlRead { try $0.scalar(String.self, "SELECT trace_parent FROM calls WHERE outbound_id = ?", [.text(id)]) }
        return stored.flatMap { $0 }.flatMap(TraceParent.init)
    }
}
