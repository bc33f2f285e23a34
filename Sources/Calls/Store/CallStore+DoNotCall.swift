import Foundation

/// Seed 000 §11 (spam prevention): numbers that must never be called. Numbers are kept as
/// `OutboundCallRequest.normalize(number:)` gives them (digits, optional +), so "010-1234-5678"
/// and "010 1234 5678" are one entry.
extension CallStore {
    public struct DoNotCallEntry: Codable, Sendable, Equatable {
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
        try await sqlWrite { sql in
            var added = 0
            for entry in entries where try !DoNotCallEntry.isListed(entry.number, in: sql) {
                try sql.insert(entry, into: "do_not_call")
                added += 1
            }
            return added
        }
    }

    /// Removes `number`; returns whether it was listed.
    @discardableResult
    public func removeFromDoNotCallList(_ number: String) async throws -> Bool {
        try await sqlWrite { try $0.execute("DELETE FROM do_not_call WHERE number = ?", number) > 0 }
    }

    public func isOnDoNotCallList(_ number: String) async throws -> Bool {
        try await sqlRead { try DoNotCallEntry.isListed(number, in: $0) }
    }

    /// Which of `numbers` are listed (one query per 500, for validating a whole contact list).
    public func doNotCallListed(among numbers: [String]) async throws -> Set<String> {
        try await sqlRead { sql in
            var listed = Set<String>()
            for chunk in stride(from: 0, to: numbers.count, by: 500).map({ numbers[$0..<min($0 + 500, numbers.count)] }) {
                listed.formUnion(try sql.column(String.self, "SELECT number FROM do_not_call WHERE number IN (\(sql.placeholders(chunk.count)))",
                                                chunk.map(\.sqlValue)))
            }
            return listed
        }
    }

    /// Newest first; `search` matches digits anywhere in the number.
    public func doNotCallPage(search: String? = nil, limit: Int = 50, offset: Int = 0) async throws -> (entries: [DoNotCallEntry], total: Int) {
        try await sqlRead { sql in
            let digits = search?.filter { $0.isASCII && $0.isNumber } ?? ""
            let filter = digits.isEmpty ? "" : " WHERE number LIKE ?"
            let arguments: [SQLValue] = digits.isEmpty ? [] : [.text("%\(digits)%")]
            let entries = try sql.fetchAll(DoNotCallEntry.self, "SELECT * FROM do_not_call\(filter) ORDER BY added_at DESC, number LIMIT ? OFFSET ?",
                                           arguments + [.integer(Int64(limit)), .integer(Int64(offset))])
            return (entries, try sql.scalar(Int.self, "SELECT COUNT(*) FROM do_not_call\(filter)", arguments) ?? 0)
        }
    }
}

extension CallStore.DoNotCallEntry {
    static func isListed(_ number: String, in sql: any SQLConnection) throws -> Bool {
        try sql.scalar(Int.self, "SELECT 1 FROM do_not_call WHERE number = ?", [.text(number)]) != nil
    }
}
