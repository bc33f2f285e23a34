import Foundation

/// `voicebridge rekey`: rewrites everything sealed with an older key (or stored before encryption
/// was turned on) under the current key, a batch per transaction. It can run beside a serving
/// node, and stopped at any point it resumes where it was: a row already under the current key is
/// never selected again.
extension CallStore {
    /// The stored text that is sealed: table, its key columns, column, and which rows (transcript
    /// events only; other events hold states and counts).
    static let sealedColumns: [(table: String, key: [String], column: String, rows: String)] = [
        ("calls", ["outbound_id"], "metadata", "1 = 1"), ("calls", ["outbound_id"], "summary", "1 = 1"),
        ("calls", ["outbound_id"], "flow_result", "1 = 1"), ("calls", ["outbound_id"], "analysis", "1 = 1"),
        ("transcript_entries", ["id"], "text", "1 = 1"),
        ("answers", ["outbound_id", "question_id"], "answer_text", "1 = 1"), ("answers", ["outbound_id", "question_id"], "answer_summary", "1 = 1"),
        ("events", ["id"], "payload", "type = 'transcript'"),
        ("webhook_deliveries", ["id"], "payload", "1 = 1"), ("after_call_tools", ["id"], "payload", "1 = 1"),
        ("webhook_endpoints", ["id"], "secret", "1 = 1"),
        ("campaign_contacts", ["id"], "variables", "1 = 1"), ("knowledge_questions", ["id"], "question", "1 = 1"),
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
        for (table, key, column, rows) in Self.sealedColumns {
            let stale = "\(column) IS NOT NULL AND \(column) NOT LIKE ? AND \(rows)"
            let total = try await sqlRead { try $0.scalar(Int.self, "SELECT COUNT(*) FROM \(table) WHERE \(stale)", [.text(current)]) ?? 0 }
            var done = 0
            while done < total {
                let n = try await sqlWrite { sql in
                    let batch = try sql.rows("SELECT \(key.joined(separator: ", ")), \(column) FROM \(table) WHERE \(stale) LIMIT ?", current, batchSize)
                    let byKey = key.map { "\($0) = ?" }.joined(separator: " AND ")
                    for row in batch {
                        let resealed = cipher.seal(try cipher.open(try row.get(column, as: String.self)))
                        let keyValues = key.map { row.value($0) ?? .null }   // selected above: never missing
                        try sql.execute("UPDATE \(table) SET \(column) = ? WHERE \(byKey)", [.text(resealed)] + keyValues)
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
        // Older frames in SQLite's write-ahead log may still hold what was rewritten.
        try await checkpoint()
        return report
    }

    private func rekeyRecordings(_ cipher: StorageCipher, _ report: inout RekeyReport, _ progress: (RekeyProgress) -> Void) async throws {
        let paths = try await sqlRead { try $0.column(String.self, "SELECT path FROM recordings ORDER BY id") }
        for (n, path) in paths.enumerated() {
            guard FileManager.default.fileExists(atPath: path) else { report.missingRecordings += 1; continue }
            guard SealedRecording.keyID(path: path) != cipher.currentKeyID else { continue }
            let wav = try await RecordingReader.open(path: path, cipher: cipher).wholeWAV()
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
        try await sqlWrite { sql in
            // Each recording's key is read once, not once per key that might be retired.
            let recordingKeys = Set(try sql.column(String.self, "SELECT path FROM recordings").compactMap(SealedRecording.keyID(path:)))
            var retired: [String] = []
            for id in try Self.storageKeyIDs(in: sql) where id != cipher.currentKeyID {
                var used = recordingKeys.contains(id)
                for (table, _, column, _) in Self.sealedColumns where !used {
                    used = try sql.scalar(Int.self, "SELECT 1 FROM \(table) WHERE \(column) LIKE ? LIMIT 1", [.text(Self.sealedPattern(keyID: id))]) != nil
                }
                if !used {
                    try sql.execute("DELETE FROM storage_keys WHERE key_id = ?", id)
                    retired.append(id)
                }
            }
            return retired
        }
    }
}
