import Foundation

/// One try at a call: dialled (or answered, inbound) at `startedAt`, ended with `outcome` — the
/// state it ended in (`busy`, `no_answer`, `completed` …) — and its reason. A call that is retried
/// keeps every attempt.
public struct CallAttempt: Sendable, Equatable, Codable {
    public var outboundId: String
    public var attemptNumber: Int
    public var sipCallId: String?
    public var startedAt: Date
    public var endedAt: Date?
    /// The state the attempt ended in; nil while it runs.
    public var outcome: String?
    public var failureReason: String?
}

extension CallStore {
    public func attempts(callID: String) async throws -> [CallAttempt] {
        try await sqlRead { try $0.fetchAll(CallAttempt.self, "SELECT * FROM attempts WHERE outbound_id = ? ORDER BY attempt_number", [.text(callID)]) }
    }

    static func openAttempt(_ call: CallRecord, at now: Date, in sql: any SQLConnection) throws {
        try sql.insert(CallAttempt(outboundId: call.outboundId, attemptNumber: call.attemptCount, sipCallId: call.callId, startedAt: now), into: "attempts")
    }

    static func closeAttempt(callID: String, outcome: CallState, reason: String?, at now: Date, in sql: any SQLConnection) throws {
        try sql.execute("UPDATE attempts SET ended_at = ?, outcome = ?, failure_reason = ? WHERE outbound_id = ? AND ended_at IS NULL",
                        now, outcome.rawValue, reason, callID)
    }
}
