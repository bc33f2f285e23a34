import Foundation
import GRDB

/// Encryption at rest: where the store seals and opens, and how it checks its keys.
///
/// Values are sealed on their way in and opened on their way out of the store's public methods;
/// inside a transaction, rows stay as stored, so a record read and written back is never sealed
/// twice nor written in the clear.
extension CallStore {
    /// Per SQLite connection, with a cipher: freed space is zeroed (`secure_delete`), so a value
    /// rewritten sealed leaves no plain copy behind in the file.
    static func prepareEncryption(_ db: Database, cipher: StorageCipher?) throws {
        if cipher != nil { try db.execute(sql: "PRAGMA secure_delete = ON") }
    }

    /// Stored text in the clear: opened with `cipher`, or as it is when it was never sealed.
    static func open(_ text: String, with cipher: StorageCipher?) throws -> String {
        if let cipher { return try cipher.open(text) }
        if let id = StorageCipher.keyID(ofSealed: text) { throw StorageCipher.Failure.unknownKey(id) }
        return text
    }

    /// Refuses to open a database holding data sealed with a key this store was not given (or any
    /// sealed data, without a key); records the current key as one that seals here.
    static func checkStorageKeys(cipher: StorageCipher?, now: Date = Date(), in sql: any SQLConnection) throws {
        let missing = try storageKeyIDs(in: sql).filter { !(cipher?.keyIDs.contains($0) ?? false) }
        guard missing.isEmpty else {
            throw Failure.storageKeysMissing(missing: missing, configured: cipher.map { [$0.currentKeyID] } ?? [])
        }
        if let cipher {
            try sql.execute("INSERT INTO storage_keys (key_id, first_used_at) VALUES (?, ?) ON CONFLICT DO NOTHING", cipher.currentKeyID, now)
        }
    }

    /// The key ids that have sealed data here, oldest first.
    public func storageKeyIDs() async throws -> [String] {
        try await sqlRead(Self.storageKeyIDs)
    }

    static func storageKeyIDs(in sql: any SQLConnection) throws -> [String] {
        try sql.column(String.self, "SELECT key_id FROM storage_keys ORDER BY first_used_at")
    }

    func sealed(_ call: CallRecord) -> CallRecord {
        var call = call
        call.metadata = sealed(call.metadata)
        call.summary = sealed(call.summary)
        call.flowResult = sealed(call.flowResult)
        call.analysis = sealed(call.analysis)
        return call
    }

    func opened(_ call: CallRecord) throws -> CallRecord {
        var call = call
        call.metadata = try opened(call.metadata)
        call.summary = try opened(call.summary)
        call.flowResult = try opened(call.flowResult)
        call.analysis = try opened(call.analysis)
        return call
    }

    func opened(_ event: CallEvent) throws -> CallEvent {
        var event = event
        event.payload = try opened(event.payload)
        return event
    }

    /// A call's latest recording, to read block by block; nil when it has none (or its file is gone).
    public func recording(callID: String) async throws -> RecordingReader? {
        guard let path = try await recordingPath(callID: callID), FileManager.default.fileExists(atPath: path) else { return nil }
        return try await RecordingReader.open(path: path, cipher: cipher)
    }
}
