import Foundation
import GRDB

/// One try at a call: dialled (or answered, inbound) at `startedAt`, ended with `outcome` — the
/// state it ended in (`busy`, `no_answer`, `completed` …) — and its reason. A call that is retried
/// keeps every attempt.
public struct CallAttempt: Sendable, Equatable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "attempts"
    public static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    public static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

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
    /// Every attempt of a call, first first.
    public func attempts(callID: String) async throws -> [CallAttempt] {
        try await read { try CallAttempt.filter(Column("outbound_id") == callID).order(Column("attempt_number")).fetchAll($0) }
    }

    /// Opens attempt number `call.attemptCount`.
    static func openAttempt(_ call: CallRecord, at now: Date, in db: Database) throws {
        try CallAttempt(outboundId: call.outboundId, attemptNumber: call.attemptCount, sipCallId: call.callId, startedAt: now)
            .insert(db)
    }

    /// Closes the call's running attempt with the state it ended in.
    static func closeAttempt(callID: String, outcome: CallState, reason: String?, at now: Date, in db: Database) throws {
        try db.execute(sql: "UPDATE attempts SET ended_at = ?, outcome = ?, failure_reason = ? WHERE outbound_id = ? AND ended_at IS NULL",
                       arguments: [now, outcome.rawValue, reason, callID])
    }
}
