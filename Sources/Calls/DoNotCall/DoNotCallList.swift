import Foundation

/// Seed 000 §11 (spam prevention): numbers that must never be called. Each entry keeps the number
/// as it was given (digits, optional +) and its E.164 form (`NumberPlan`), which is what every
/// check compares: "010-1234-5678", "821012345678" and "+82 010 1234 5678" are one entry.
/// The call store checks the list in the transaction that queues an outbound call, so a number
/// listed a moment before is never dialed.
public struct DoNotCallList: StoreRoom {
    let shared: SharedDatabase
    /// How numbers are read for comparison (`numbers.default_country`).
    let numbers: NumberPlan

    /// Adds each number not listed yet; returns how many were new. Numbers must be normalized.
    @discardableResult
    public func add(_ entries: [DoNotCallEntry]) async throws -> Int {
        try await sqlWrite { [numbers] sql in
            var added = 0
            for var entry in entries {
                let canonical = numbers.storedKey(entry.number)
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
    public func remove(_ number: String) async throws -> Bool {
        let canonical = numbers.storedKey(number)
        return try await sqlWrite { try $0.execute("DELETE FROM do_not_call WHERE canonical = ?", canonical) > 0 }
    }

    public func contains(_ number: String) async throws -> Bool {
        let canonical = numbers.storedKey(number)
        return try await sqlRead { try DoNotCallEntry.isListed(canonical: canonical, in: $0) }
    }

    /// Which of `numbers` are listed (one query per 500, for validating a whole contact list).
    public func listed(among given: [String]) async throws -> Set<String> {
        let canonical = Dictionary(given.map { (self.numbers.storedKey($0), $0) }, uniquingKeysWith: { first, _ in first })
        let keys = Array(canonical.keys)
        return try await sqlRead { sql in
            var listed = Set<String>()
            for chunk in stride(from: 0, to: keys.count, by: 500).map({ keys[$0..<min($0 + 500, keys.count)] }) {
                listed.formUnion(try sql.column(String.self, "SELECT canonical FROM do_not_call WHERE canonical IN (\(sql.placeholders(chunk.count)))",
                                                chunk.map(\.sqlValue)))
            }
            // Every given spelling of a listed number is listed.
            return Set(given.filter { listed.contains(self.numbers.storedKey($0)) })
        }
    }

    /// Newest first; `search` matches digits anywhere in the number.
    public func page(search: String? = nil, limit: Int = 50, offset: Int = 0) async throws -> (entries: [DoNotCallEntry], total: Int) {
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

extension DoNotCallEntry {
    static func isListed(canonical: String, in sql: any SQLConnection) throws -> Bool {
        try sql.scalar(Int.self, "SELECT 1 FROM do_not_call WHERE canonical = ?", [.text(canonical)]) != nil
    }
}
