import Foundation
import Knowledge

/// The questions callers asked that the knowledge base could not answer (schema v21): kept with
/// their call when its result is saved, listed for the operator, and closed when the operator
/// answers one (`KnowledgeStore.appendAnswer`) or dismisses it. The question is what the caller
/// said, so it is sealed like the transcript it came from.
public struct KnowledgeQuestionStore: SealingStoreRoom {
    let shared: SharedDatabase
    let cipher: StorageCipher?

    /// Most open questions one listing reads (the newest): enough for weeks of a busy line, and a
    /// bound on the grouping's work.
    public static let listingLimit = 2_000

    public struct Question: Sendable, Equatable, Codable {
        public var id: Int64
        public var callID: String
        public var campaignID: String?
        /// The call's collections, where an answer goes by default.
        public var collections: [String]
        public var question: String
        public var askedAt: Date

        enum CodingKeys: String, CodingKey {
            case id, question, collections
            case callID = "call_id"
            case campaignID = "campaign_id"
            case askedAt = "asked_at"
        }
    }

    /// How an open question was closed.
    public enum Resolution: Sendable, Equatable {
        /// A FAQ row now answers it, in this collection.
        case answered(collection: String)
        case dismissed

        var stored: String {
            switch self {
            case .answered(let collection): "answered:\(collection)"
            case .dismissed: "dismissed"
            }
        }
    }

    /// Keeps `questions` of the call `callID` (its campaign and collections read from its row), in
    /// the transaction that saves the call's result: a result is never stored without them.
    static func keep(_ questions: [String], callID: String, now: Date, sealedWith cipher: StorageCipher?, in sql: any SQLConnection) throws {
        for question in questions where !question.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            try sql.execute("""
                INSERT INTO knowledge_questions (outbound_id, campaign_id, collections, question, asked_at)
                SELECT outbound_id, campaign_id, COALESCE(knowledge, '[]'), ?, ? FROM calls WHERE outbound_id = ?
                """, cipher?.seal(question) ?? question, now, callID)
        }
    }

    /// The open questions asked in the last `days` days, newest first (at most `limit`); of one
    /// campaign's calls when `campaignID` is given.
    public func open(askedWithin days: Int, campaignID: String? = nil, limit: Int = listingLimit,
                     now: Date = Date()) async throws -> (questions: [Question], since: Date) {
        let since = now.addingTimeInterval(-Double(days) * 86_400)
        return (try await open(since: since, campaignID: campaignID, limit: limit), since)
    }

    /// The open questions asked since `since`, newest first (at most `limit`).
    public func open(since: Date, campaignID: String? = nil, limit: Int = listingLimit) async throws -> [Question] {
        let rows = try await sqlRead { sql in
            var query = "SELECT id, outbound_id, campaign_id, collections, question, asked_at FROM knowledge_questions WHERE resolved_at IS NULL AND asked_at >= ?"
            var arguments: [SQLValue] = [since.sqlValue]
            if let campaignID { query += " AND campaign_id = ?"; arguments.append(campaignID.sqlValue) }
            return try sql.rows(query + " ORDER BY asked_at DESC, id DESC LIMIT ?", arguments + [limit.sqlValue])
        }
        return try rows.map { row in
            let collections = try JSONDecoder().decode([String].self, from: Data((try row.get("collections", as: String.self)).utf8))
            return Question(id: try row.get("id"), callID: try row.get("outbound_id"), campaignID: try row.get("campaign_id"),
                            collections: collections, question: try opened(try row.get("question", as: String.self)), askedAt: try row.get("asked_at"))
        }
    }

    /// How many of a campaign's questions are still open.
    public func openCount(campaignID: String) async throws -> Int {
        try await sqlRead { try $0.scalar(Int.self, "SELECT COUNT(*) FROM knowledge_questions WHERE campaign_id = ? AND resolved_at IS NULL", [campaignID.sqlValue]) ?? 0 }
    }

    /// Closes the open ones of `ids` without an answer; returns how many it closed.
    @discardableResult
    public func dismiss(ids: [Int64], now: Date = Date()) async throws -> Int {
        try await sqlWrite { try Self.resolve(ids: ids, .dismissed, now: now, in: $0) }
    }

    static func resolve(ids: [Int64], _ resolution: Resolution, now: Date, in sql: any SQLConnection) throws -> Int {
        guard !ids.isEmpty else { return 0 }
        let places = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        return try sql.execute("UPDATE knowledge_questions SET resolved_at = ?, resolution = ? WHERE resolved_at IS NULL AND id IN (\(places))",
                               [now.sqlValue, resolution.stored.sqlValue] + ids.map(\.sqlValue))
    }
}
