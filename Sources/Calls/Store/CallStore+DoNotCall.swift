import Foundation

/// Seed 000 §11 (spam prevention): numbers that must never be called. Each entry keeps the number
/// as it was given (digits, optional +) and its E.164 form (`NumberPlan`), which is what every
/// check compares: "010-1234-5678", "821012345678" and "+82 010 1234 5678" are one entry.
extension CallStore {
    public struct DoNotCallEntry: Codable, Sendable, Equatable {
        public var number: String
        public var reason: String
        public var addedBy: String
        public var addedAt: Date
        /// `number` in E.164 (schema v16); set by the store.
        public var canonical: String?

        public init(number: String, reason: String = "", addedBy: String = "operator", addedAt: Date = Date()) {
            self.number = number
            self.reason = reason
            self.addedBy = addedBy
            self.addedAt = addedAt
        }

        enum CodingKeys: String, CodingKey {
            case number, reason, canonical
            case addedBy = "added_by", addedAt = "added_at"
        }
    }

    /// Adds each number not listed yet; returns how many were new. Numbers must be normalized.
    @discardableResult
    public func addToDoNotCallList(_ entries: [DoNotCallEntry]) async throws -> Int {
        try await sqlWrite { [numbers] sql in
            var added = 0
            for var entry in entries {
                let canonical = numbers.canonical(entry.number) ?? entry.number
                guard try !DoNotCallEntry.isListed(canonical: canonical, in: sql) else { continue }
                entry.canonical = canonical
                try sql.insert(entry, into: "do_not_call")
                added += 1
            }
            return added
        }
    }

    /// Removes `number` (any spelling of it); returns whether it was listed.
    @discardableResult
    public func removeFromDoNotCallList(_ number: String) async throws -> Bool {
        let canonical = numbers.canonical(number) ?? number
        return try await sqlWrite { try $0.execute("DELETE FROM do_not_call WHERE canonical = ?", canonical) > 0 }
    }

    public func isOnDoNotCallList(_ number: String) async throws -> Bool {
        let canonical = numbers.canonical(number) ?? number
        return try await sqlRead { try DoNotCallEntry.isListed(canonical: canonical, in: $0) }
    }

    /// Which of `numbers` are listed (one query per 500, for validating a whole contact list).
    public func doNotCallListed(among given: [String]) async throws -> Set<String> {
        let canonical = Dictionary(given.map { (self.numbers.canonical($0) ?? $0, $0) }, uniquingKeysWith: { first, _ in first })
        let keys = Array(canonical.keys)
        return try await sqlRead { sql in
            var listed = Set<String>()
            for chunk in stride(from: 0, to: keys.count, by: 500).map({ keys[$0..<min($0 + 500, keys.count)] }) {
                listed.formUnion(try sql.column(String.self, "SELECT canonical FROM do_not_call WHERE canonical IN (\(sql.placeholders(chunk.count)))",
                                                chunk.map(\.sqlValue)))
            }
            // Every given spelling of a listed number is listed.
            return Set(given.filter { listed.contains(self.numbers.canonical($0) ?? $0) })
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
    static func isListed(canonical: String, in sql: any SQLConnection) throws -> Bool {
        try sql.scalar(Int.self, "SELECT 1 FROM do_not_call WHERE canonical = ?", [.text(canonical)]) != nil
    }
}

extension CallStore {
    /// Rows from before schema v16 (or written by an older node) get their E.164 form; run when
    /// the store opens, in the migration's transaction, a batch at a time.
    static func fillCanonicalNumbers(_ numbers: NumberPlan, in sql: any SQLConnection) throws {
        while true {
            let rows = try sql.rows("SELECT outbound_id, callee_number FROM calls WHERE callee_canonical IS NULL LIMIT 1000")
            if rows.isEmpty { break }
            for row in rows {
                let id: String = try row.get("outbound_id"), number: String = try row.get("callee_number")
                try sql.execute("UPDATE calls SET callee_canonical = ? WHERE outbound_id = ?", numbers.canonical(number) ?? number, id)
            }
        }
        for row in try sql.rows("SELECT id, number FROM campaign_contacts WHERE canonical IS NULL") {
            let number: String = try row.get("number")
            try sql.execute("UPDATE campaign_contacts SET canonical = ? WHERE id = ?", numbers.canonical(number) ?? number, try row.get("id", as: Int64.self))
        }
        for number in try sql.column(String.self, "SELECT number FROM do_not_call WHERE canonical IS NULL") {
            try sql.execute("UPDATE do_not_call SET canonical = ? WHERE number = ?", numbers.canonical(number) ?? number, number)
        }
    }
}
