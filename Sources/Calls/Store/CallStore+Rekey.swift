import Foundation
import GRDB

/// `voicebridge rekey`: rewrites everything sealed with an older key (or stored before encryption
/// was turned on) under the current key, a batch per transaction. It can run beside a serving
/// node, and stopped at any point it resumes where it was: a row already under the current key is
/// never selected again.
extension CallStore {
    /// The stored text that is sealed: table, column, and which rows (transcript events only;
    /// other events hold states and counts).
    static let sealedColumns: [(table: String, column: String, rows: String)] = [
        ("calls", "metadata", "1"), ("calls", "summary", "1"),
        ("transcript_entries", "text", "1"),
        ("answers", "answer_text", "1"), ("answers", "answer_summary", "1"),
        ("events", "payload", "type = 'transcript'"),
        ("webhook_deliveries", "payload", "1"),
        ("campaign_contacts", "variables", "1"),
    ]

    public struct RekeyProgress: Sendable, Equatable {
        /// `table.column`, or `recordings`.
        public var what: String
        public var done: Int
        public var total: Int
    }

    public struct RekeyReport: Sendable, Equatable {
        public var values = 0
        public var recordings = 0
        /// Recording files the database names that are no longer on disk.
        public var missingRecordings = 0
        /// Key ids no longer needed: nothing sealed with them is left.
        public var retiredKeys: [String] = []
    }

    public func rekey(batchSize: Int = 500, progress: (RekeyProgress) -> Void = { _ in }) async throws -> RekeyReport {
        guard let cipher else { throw StorageCipher.Failure.noKey }
        var report = RekeyReport()
        let current = Self.sealedPattern(keyID: cipher.currentKeyID)
        for (table, column, rows) in Self.sealedColumns {
            let stale = "\(column) IS NOT NULL AND \(column) NOT LIKE ? AND \(rows)"
            let total = try await read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM \(table) WHERE \(stale)", arguments: [current]) ?? 0 }
            var done = 0
            while done < total {
                let n = try await write { db in
                    let batch = try Row.fetchAll(db, sql: "SELECT rowid AS r, \(column) AS v FROM \(table) WHERE \(stale) LIMIT ?", arguments: [current, batchSize])
                    for row in batch {
                        try db.execute(sql: "UPDATE \(table) SET \(column) = ? WHERE rowid = ?",
                                       arguments: [cipher.seal(try cipher.open(row["v"] as String)), row["r"] as Int64])
                    }
                    return batch.count
                }
                if n == 0 { break }   // fewer than counted: a serving node removed some
                done += n
                progress(.init(what: "\(table).\(column)", done: done, total: total))
            }
            report.values += done
        }
        try await rekeyRecordings(cipher, &report, progress)
        report.retiredKeys = try await retireKeys(cipher)
        // Older frames in the write-ahead log may still hold what was rewritten.
        try await pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        return report
    }

    private func rekeyRecordings(_ cipher: StorageCipher, _ report: inout RekeyReport, _ progress: (RekeyProgress) -> Void) async throws {
        let paths = try await read { try String.fetchAll($0, sql: "SELECT path FROM recordings ORDER BY id") }
        for (n, path) in paths.enumerated() {
            guard FileManager.default.fileExists(atPath: path) else { report.missingRecordings += 1; continue }
            guard SealedRecording.keyID(path: path) != cipher.currentKeyID else { continue }
            let wav = try SealedRecording.wav(path: path, cipher: cipher)
            // Written beside it and renamed over it: a crash leaves the old file or the new one, whole.
            let next = path + ".rekey"
            try SealedRecording.seal(wav: wav, cipher: cipher).write(to: URL(fileURLWithPath: next))
            guard rename(next, path) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
            report.recordings += 1
            progress(.init(what: "recordings", done: n + 1, total: paths.count))
        }
    }

    /// A LIKE pattern for text sealed with `keyID`.
    private static func sealedPattern(keyID: String) -> String { StorageCipher.textPrefix + keyID + ":%" }

    /// Forgets the keys that nothing stored is sealed with any more.
    private func retireKeys(_ cipher: StorageCipher) async throws -> [String] {
        try await write { db in
            // Each recording's key is read once, not once per key that might be retired.
            let recordingKeys = Set(try String.fetchAll(db, sql: "SELECT path FROM recordings").compactMap(SealedRecording.keyID(path:)))
            var retired: [String] = []
            for id in try Self.storageKeyIDs(in: db) where id != cipher.currentKeyID {
                var used = recordingKeys.contains(id)
                for (table, column, _) in Self.sealedColumns where !used {
                    used = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE \(column) LIKE ?)", arguments: [Self.sealedPattern(keyID: id)]) ?? false
                }
                if !used {
                    try db.execute(sql: "DELETE FROM storage_keys WHERE key_id = ?", arguments: [id])
                    retired.append(id)
                }
            }
            return retired
        }
    }
}
