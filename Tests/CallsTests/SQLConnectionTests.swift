import Foundation
import GRDB
import Testing
import TestSupport
@testable import Calls

/// The one SQL layer the store is moving onto, run the same way against a SQLite file and a
/// PostgreSQL 15 server started for the test: records in and out, NULLs, dates, placeholders,
/// RETURNING, rollback, errors — and, on PostgreSQL, the writers' lock that gives concurrent
/// transactions from several nodes the one-writer isolation the store was written for.
@Suite(.serialized) struct SQLConnectionTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    struct Sample: Codable, Equatable, Sendable {
        var id: Int64?
        var name: String
        var kind: CallDirection
        var tags: [String]
        var seenAt: Date
        var note: String?
        var enabled: Bool
        var score: Double
        var blob: Data?
    }

    /// Runs `body` against a fresh database of `backend`, with table `samples` created.
    func withDatabase(_ backend: Backend, _ body: (any StoreDatabase) async throws -> Void) async throws {
        switch backend {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vb-sql-\(UUID().uuidString.prefix(8))")
            defer { try? FileManager.default.removeItem(at: folder) }
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let database = SQLiteStoreDatabase(pool: try DatabasePool(path: folder.appendingPathComponent("t.sqlite").path))
            try await createSamples(database)
            try await body(database)
        case .postgres:
            let database = try PostgresStoreDatabase(url: try await StoreBackend.postgres.newLocation(), maxConnections: 4)
            do {
                try await createSamples(database)
                try await body(database)
            } catch {
                await database.close()
                throw error
            }
            await database.close()
        }
    }

    func createSamples(_ database: any StoreDatabase) async throws {
        let d = database.dialect
        _ = try await database.transaction(writes: true) { sql in
            try sql.execute("""
                CREATE TABLE samples (\(d.autoIncrementedID), name TEXT NOT NULL, kind TEXT NOT NULL, tags TEXT NOT NULL,
                  seen_at \(d.dateType) NOT NULL, note TEXT, enabled \(d.boolType) NOT NULL, score \(d.realType) NOT NULL, blob \(d.blobType))
                """, [])
        }
    }

    static let t0 = Date(timeIntervalSince1970: 1_800_000_000.125)

    @Test(arguments: Backend.allCases)
    func aRecordGoesInAndComesOutTheSame(backend: Backend) async throws {
        try await withDatabase(backend) { database in
            let sample = Sample(name: "a 'quoted' ? mark", kind: .inbound, tags: ["x", "y"], seenAt: Self.t0, note: nil, enabled: true,
                                score: 0.25, blob: Data([0, 1, 255]))
            let id = try await database.transaction(writes: true) { sql in
                try sql.insert(sample, into: "samples", returning: "id").flatMap(Int64.init(sqlValue:))
            }
            #expect(id == 1)
            let read = try await database.transaction(writes: false) { sql in
                try sql.fetchOne(Sample.self, "SELECT * FROM samples WHERE id = ?", [.integer(1)])
            }
            var expected = sample
            expected.id = 1
            #expect(read == expected)

            // An update writes NULL for nil (and the other columns as given).
            var changed = expected
            changed.note = "first"
            try await database.transaction(writes: true) { [changed] sql in _ = try sql.update(changed, in: "samples", key: "id") }
            changed.note = nil
            changed.enabled = false
            let updated = try await database.transaction(writes: true) { [changed] sql in try sql.update(changed, in: "samples", key: "id") }
            #expect(updated)
            let back = try await database.transaction(writes: false) { sql in try sql.fetchOne(Sample.self, "SELECT * FROM samples", []) }
            #expect(back == changed)
        }
    }

    @Test(arguments: Backend.allCases)
    func placeholdersDatesAndCountsReadAlike(backend: Backend) async throws {
        try await withDatabase(backend) { database in
            try await database.transaction(writes: true) { sql in
                for (index, name) in ["a?", "b", "c"].enumerated() {
                    try sql.insert(Sample(name: name, kind: .outbound, tags: [], seenAt: Self.t0.addingTimeInterval(Double(index) * 60),
                                          enabled: index != 1, score: Double(index), blob: nil), into: "samples")
                }
            }
            try await database.transaction(writes: false) { sql in
                // A '?' inside quoted text is text, not a placeholder.
                #expect(try sql.column(String.self, "SELECT name FROM samples WHERE name = 'a?' OR seen_at > ? ORDER BY name",
                                       [.date(Self.t0.addingTimeInterval(90))]) == ["a?", "c"])
                #expect(try sql.scalar(Int.self, "SELECT COUNT(*) FROM samples WHERE enabled = ?", [.bool(true)]) == 2)
                #expect(try sql.scalar(Date.self, "SELECT MAX(seen_at) FROM samples", []) == Self.t0.addingTimeInterval(120))
                #expect(try sql.scalar(Int.self, "SELECT id FROM samples WHERE name = ?", ["nobody".sqlValue]) == nil)
                let names = try sql.column(String.self, "SELECT name FROM samples WHERE name IN (\(sql.placeholders(2))) ORDER BY name",
                                           [.text("b"), .text("c")])
                #expect(names == ["b", "c"])
            }
            let changed = try await database.transaction(writes: true) { sql in
                try sql.execute("UPDATE samples SET score = score + 1 WHERE seen_at <= ?", [.date(Self.t0.addingTimeInterval(60))])
            }
            #expect(changed == 2)
        }
    }

    struct Refused: Error {}

    @Test(arguments: Backend.allCases)
    func aThrowingTransactionLeavesNothingAndABadStatementSaysWhy(backend: Backend) async throws {
        try await withDatabase(backend) { database in
            await #expect(throws: Refused.self) {
                try await database.transaction(writes: true) { sql in
                    try sql.insert(Sample(name: "gone", kind: .outbound, tags: [], seenAt: Self.t0, enabled: true, score: 0), into: "samples")
                    throw Refused()
                }
            }
            let error = await #expect(throws: SQLError.self) {
                try await database.transaction(writes: true) { sql in try sql.execute("INSERT INTO nowhere (x) VALUES (?)", [.integer(1)]) }
            }
            #expect("\(error.map(String.init(describing:)) ?? "")".contains("nowhere"))
            // The connection is still good after the failed statement.
            let count = try await database.transaction(writes: false) { sql in try sql.scalar(Int.self, "SELECT COUNT(*) FROM samples", []) }
            #expect(count == 0)
        }
    }

    /// Eight transactions at once each count the rows and add one while there are fewer than
    /// three, sleeping between the two: only a writer that excludes the others keeps it at three.
    @Test(arguments: Backend.allCases)
    func concurrentWritersSeeEachOthersCommits(backend: Backend) async throws {
        try await withDatabase(backend) { database in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        try await database.transaction(writes: true) { sql in
                            let count = try sql.scalar(Int.self, "SELECT COUNT(*) FROM samples", []) ?? 0
                            Thread.sleep(forTimeInterval: 0.02)
                            if count < 3 {
                                try sql.insert(Sample(name: "w\(index)", kind: .outbound, tags: [], seenAt: Self.t0, enabled: true, score: 0), into: "samples")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let count = try await database.transaction(writes: false) { sql in try sql.scalar(Int.self, "SELECT COUNT(*) FROM samples", []) }
            #expect(count == 3)
        }
    }

    @Test func aDatabaseURLIsReadOrRefusedClearly() throws {
        let location = try PostgresStoreDatabase.Location(url: "postgres://vb:p%40ss@db.example:6543/calls")
        #expect(location == (try PostgresStoreDatabase.Location(url: "postgresql://vb:p%40ss@db.example:6543/calls")))
        #expect(location.host == "db.example" && location.port == 6543 && location.username == "vb" && location.password == "p@ss" && location.database == "calls")
        #expect(try PostgresStoreDatabase.Location(url: "postgres://vb@db").database == "vb")
        #expect(throws: SQLError.self) { try PostgresStoreDatabase.Location(url: "mysql://vb@db/calls") }
        #expect(throws: SQLError.self) { try PostgresStoreDatabase.Location(url: "postgres:///calls") }
        #expect(location.address == "postgres://vb@db.example:6543/calls", "the address logs show has no password")
        do {
            _ = try PostgresStoreDatabase.Location(url: "postgres://vb:secret@/calls")
            Issue.record("a URL without a host was accepted")
        } catch {
            #expect(!"\(error)".contains("secret"), "a refused URL is not repeated with its password: \(error)")
        }
    }
}
