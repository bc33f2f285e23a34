import Foundation
import Testing
import TestSupport
@testable import Calls

/// The two databases a store runs on, for store tests that run on both: a SQLite file in a fresh
/// folder, or a fresh database on the test process's PostgreSQL 15 server (`TestPostgres.shared`).
enum StoreBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// Where a new, empty store goes: a file path or a `postgres://` URL (open it with `CallStore.open`,
    /// as often as a test needs nodes sharing it).
    func newLocation() throws -> String {
        switch self {
        case .sqlite: CallStoreTests.temporaryPath()
        case .postgres: try TestPostgres.shared().newDatabase()
        }
    }

    /// A new, empty store.
    func store(cipher: StorageCipher? = nil) async throws -> CallStore {
        try await CallStore.open(try newLocation(), cipher: cipher)
    }
}
