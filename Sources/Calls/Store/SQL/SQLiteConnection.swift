import Foundation
import GRDB
import Pipeline

/// `SQLConnection` over a GRDB `Database` (one SQLite transaction). Values are bound as GRDB binds
/// them, so a date is the text GRDB has always written and old files read the same.
struct SQLiteConnection: SQLConnection {
    let database: Database
    let notes = TransactionNotes()
    var dialect: SQLDialect { .sqlite }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try Self.reporting(sql) { try database.execute(sql: sql, arguments: Self.arguments(arguments)) }
        return database.changesCount
    }

    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        try Self.reporting(sql) { try Row.fetchAll(database, sql: sql, arguments: Self.arguments(arguments)) }.map(Self.row)
    }

    /// A GRDB row as the SQL layer's.
    static func row(_ row: Row) -> SQLRow {
        SQLRow(columns: Array(row.columnNames), values: row.databaseValues.map(value))
    }

    /// A statement SQLite refused becomes the same `SQLError.statement` PostgreSQL's does.
    private static func reporting<T>(_ sql: String, _ run: () throws -> T) throws -> T {
        do { return try run() } catch let error as DatabaseError {
            throw SQLError.statement(message: error.message ?? "\(error.resultCode)", sql: sql)
        }
    }

    static func arguments(_ values: [SQLValue]) -> StatementArguments {
        StatementArguments(values.map { value -> DatabaseValue in
            switch value {
            case .null: .null
            case .integer(let integer): integer.databaseValue
            case .real(let real): real.databaseValue
            case .text(let text): text.databaseValue
            case .blob(let data): data.databaseValue
            case .bool(let bool): bool.databaseValue
            case .date(let date): date.databaseValue
            }
        })
    }

    static func value(_ stored: DatabaseValue) -> SQLValue {
        switch stored.storage {
        case .null: .null
        case .int64(let integer): .integer(integer)
        case .double(let real): .real(real)
        case .string(let text): .text(text)
        case .blob(let data): .blob(data)
        }
    }
}

/// The store's SQLite file: GRDB's pool (one writer, readers on WAL snapshots) behind `StoreDatabase`.
struct SQLiteStoreDatabase: StoreDatabase {
    let pool: DatabasePool
    var dialect: SQLDialect { .sqlite }

    /// Unlike GRDB's own async `read` and `write`, not cancelled with the calling task.
    func transaction<T: Sendable>(writes: Bool, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        // In virtual time the transaction runs in place, as blocking work does there: the calls
        // sharing that time see it done at the moment it was asked for, in the same order every run.
        if VirtualTimeExecutor.current != nil { return try inPlace(writes: writes, body) }
        return try await withCheckedThrowingContinuation { continuation in
            if writes {
                pool.asyncWrite({ try body($0.sql) }) { _, result in continuation.resume(with: result) }
            } else {
                pool.asyncRead { database in continuation.resume(with: Result { try body(database.get().sql) }) }
            }
        }
    }
}

extension SQLiteStoreDatabase {
    private func inPlace<T>(writes: Bool, _ body: (any SQLConnection) throws -> T) throws -> T {
        writes ? try pool.write { try body($0.sql) } : try pool.read { try body($0.sql) }
    }
}

extension Database {
    /// This transaction through the SQL layer (the store opening a file migrates it synchronously).
    var sql: any SQLConnection { SQLiteConnection(database: self) }
}
