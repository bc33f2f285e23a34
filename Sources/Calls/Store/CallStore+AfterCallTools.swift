import Foundation
import Tools

/// The outbox of `on_end` tools (schema v18): written with the call's end, claimed with a lease
/// like the webhook outbox, each attempt's verdict from the same retry policy.
extension CallStore {
    /// One row per `on_end` tool of `call`, inside the transaction that ends it.
    func enqueueAfterCallTools(_ call: CallRecord, result: [String: Any], now: Date, in sql: any SQLConnection) throws {
        let tools = (call.tools ?? []).filter(\.onEnd)
        guard !tools.isEmpty else { return }
        let payload = String(decoding: try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
        for tool in tools {
            let declaration = try Self.jsonText(tool)
            try sql.insert(AfterCallToolRun(id: AfterCallToolRun.newID(), outboundId: call.outboundId, toolName: tool.name, tool: declaration,
                                            payload: sealed(payload), state: .pending, attemptCount: 0, nextAttemptAt: now, createdAt: now),
                           into: "after_call_tools")
        }
        sql.notes.wroteOutbox = true
    }

    /// When the earliest pending run is due; nil: none is pending.
    public func nextAfterCallToolAttempt() async throws -> Date? {
        try await sqlRead { try $0.scalar(Date.self, "SELECT MIN(next_attempt_at) FROM after_call_tools WHERE state = 'pending'") }
    }

    /// Claims up to `limit` due runs; each one's next attempt moves `lease` ahead (see `WebhookStore.claimDue`).
    public func claimDueAfterCallTools(now: Date = Date(), limit: Int, lease: TimeInterval) async throws -> [(AfterCallToolRun, ToolDefinition)] {
        try await sqlWrite { [self] sql in
            let due = try sql.fetchAll(AfterCallToolRun.self, """
                SELECT * FROM after_call_tools WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?\(sql.dialect.skipLocked)
                """, [.date(now), .integer(Int64(limit))])
            return try due.map { run in
                try sql.execute("UPDATE after_call_tools SET next_attempt_at = ? WHERE id = ?", now.addingTimeInterval(lease), run.id)
                var opened = run
                opened.payload = try self.opened(run.payload)
                return (opened, try JSONDecoder().decode(ToolDefinition.self, from: Data(run.tool.utf8)))
            }
        }
    }

    /// Stores what an attempt came to: delivered, tried again later, or given up (with why).
    public func recordAfterCallToolAttempt(id: String, at: Date, status: Int?, error: String?, verdict: WebhookRetryPolicy.Verdict) async throws {
        try await sqlWrite { sql in
            guard var run = try sql.fetchOne(AfterCallToolRun.self, "SELECT * FROM after_call_tools WHERE id = ?", [id.sqlValue]) else { return }
            run.record(attemptAt: at, status: status, error: error, verdict: verdict, gone: "the tool answered 410 Gone; not retried")
            try sql.update(run, in: "after_call_tools", key: "id")
        }
    }

    /// A call's `on_end` tool runs, oldest first.
    public func afterCallToolRuns(callID: String) async throws -> [AfterCallToolRun] {
        try await sqlRead { try $0.fetchAll(AfterCallToolRun.self, "SELECT * FROM after_call_tools WHERE outbound_id = ? ORDER BY created_at, id", [callID.sqlValue]) }
    }
}
