import Foundation
import GRDB

/// Seed 000 §11 (spam prevention): numbers that must never be called. Numbers are kept as
/// `OutboundCallRequest.normalize(number:)` gives them (digits, optional +), so "010-1234-5678"
/// and "010 1234 5678" are one entry.
extension CallStore {
    public struct DoNotCallEntry: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
        public static let databaseTableName = "do_not_call"
        public var number: String
        public var reason: String
        public var addedBy: String
        public var addedAt: Date

        public init(number: String, reason: String = "", addedBy: String = "operator", addedAt: Date = Date()) {
            self.number = number
            self.reason = reason
            self.addedBy = addedBy
            self.addedAt = addedAt
        }

        enum CodingKeys: String, CodingKey {
            case number, reason
            case addedBy = "added_by", addedAt = "added_at"
        }
    }

    /// Adds each number not listed yet; returns how many were new. Numbers must be normalized.
    @discardableResult
    public func addToDoNotCallList(_ entries: [DoNotCallEntry]) async throws -> Int {
        try await write { db in
            var added = 0
            for entry in entries where try !entry.exists(db) {
                try entry.insert(db)
                added += 1
            }
            return added
        }
    }

    /// Removes `number`; returns whether it was listed.
    @discardableResult
    public func removeFromDoNotCallList(_ number: String) async throws -> Bool {
        try await write { try DoNotCallEntry.deleteOne($0, key: number) }
    }

    public func isOnDoNotCallList(_ number: String) async throws -> Bool {
        try await read { try DoNotCallEntry.exists($0, key: number) }
    }

    /// Which of `numbers` are listed (one query, for validating a whole contact list).
    public func doNotCallListed(among numbers: [String]) async throws -> Set<String> {
        try await read { db in
            var listed = Set<String>()
            for chunk in stride(from: 0, to: numbers.count, by: 500).map({ numbers[$0..<min($0 + 500, numbers.count)] }) {
                listed.formUnion(try String.fetchAll(db, DoNotCallEntry.select(Column("number")).filter(chunk.contains(Column("number")))))
            }
            return listed
        }
    }

    /// Newest first; `search` matches digits anywhere in the number.
    public func doNotCallPage(search: String? = nil, limit: Int = 50, offset: Int = 0) async throws -> (entries: [DoNotCallEntry], total: Int) {
        try await read { db in
            var query = DoNotCallEntry.all()
            let digits = search?.filter { $0.isASCII && $0.isNumber } ?? ""
            if !digits.isEmpty { query = query.filter(Column("number").like("%\(digits)%")) }
            return (try query.order(Column("added_at").desc, Column("number")).limit(limit, offset: offset).fetchAll(db), try query.fetchCount(db))
        }
    }
}
