import Crypto
import Foundation

extension CallStore {
    /// Admits one call creation by `identity` if it made fewer than `perMinute` in the 60 s before
    /// `now` — counted in the database, so the limit holds over every node. Returns nil when
    /// admitted, else how long until the oldest creation in the window leaves it.
    public func admitCreation(identity: String, perMinute: Int, now: Date = Date()) async throws -> TimeInterval? {
        let key = Self.identityKey(identity)
        return try await sqlWrite { sql in
            let windowStart = now.addingTimeInterval(-60)
            try sql.execute("DELETE FROM api_admissions WHERE identity = ? AND admitted_at <= ?", key, windowStart)
            let recent = try sql.column(Date.self, "SELECT admitted_at FROM api_admissions WHERE identity = ? ORDER BY admitted_at LIMIT ?",
                                        [.text(key), .integer(Int64(perMinute))])
            guard recent.count < perMinute else { return recent[0].timeIntervalSince(windowStart) }
            try sql.execute("INSERT INTO api_admissions (identity, admitted_at) VALUES (?, ?)", key, now)
            return nil
        }
    }

    /// What the table keeps of an identity (an API token): the first 16 bytes of its SHA-256, in hex.
    static func identityKey(_ identity: String) -> String {
        SHA256.hash(data: Data(identity.utf8)).prefix(16).hexDigits
    }
}
