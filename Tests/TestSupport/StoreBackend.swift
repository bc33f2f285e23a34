import Foundation

/// The two databases a store runs on, for tests that run on both: a SQLite file in a fresh
/// folder, or a fresh database on the test process's PostgreSQL 15 server (`TestPostgres.shared`).
public enum StoreBackend: String, CaseIterable, Sendable {
    case sqlite, postgres

    /// Where a new, empty store goes: a file path or a `postgres://` URL (open it with `CallStore.open`,
    /// as often as a test needs nodes sharing it).
    public func newLocation() async throws -> String {
        switch self {
        case .sqlite: Self.temporarySQLitePath()
        case .postgres: try await TestPostgres.shared().newDatabase()
        }
    }

    /// A SQLite file path in a fresh folder (the store creates the folder).
    public static func temporarySQLitePath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("vb-\(UUID().uuidString)/calls.sqlite").path
    }
}
