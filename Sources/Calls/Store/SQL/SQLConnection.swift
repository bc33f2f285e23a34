import Foundation

/// The SQL the store writes is one text for both databases; these are the places they differ.
public enum SQLDialect: String, Sendable {
    case sqlite, postgres

    /// `SELECT … FOR UPDATE SKIP LOCKED` on PostgreSQL, where other nodes' transactions run at the
    /// same time; nothing on SQLite, whose one writer already excludes every other.
    var skipLocked: String { self == .postgres ? " FOR UPDATE SKIP LOCKED" : "" }

    /// Column types as each database names them (a migration's DDL goes through these).
    public var dateType: String { self == .postgres ? "TIMESTAMPTZ" : "DATETIME" }
    public var boolType: String { "BOOLEAN" }   // SQLite stores 0/1 under it; PostgreSQL has the type
    public var blobType: String { self == .postgres ? "BYTEA" : "BLOB" }
    public var realType: String { self == .postgres ? "DOUBLE PRECISION" : "DOUBLE" }
    public var integerType: String { self == .postgres ? "BIGINT" : "INTEGER" }
    /// `LIKE` that ignores letter case, as SQLite's does for ASCII.
    var caseInsensitiveLike: String { self == .postgres ? "ILIKE" : "LIKE" }

    /// The hour a date column falls in, UTC, as ISO 8601 text (`2026-11-24T09:00:00Z`).
    func hourUTC(_ column: String) -> String {
        switch self {
        case .sqlite: "strftime('%Y-%m-%dT%H:00:00Z', \(column))"
        case .postgres: "to_char(\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:00:00\"Z\"')"
        }
    }

    /// An `id` column numbered by the database, as the first column of a table.
    public var autoIncrementedID: String {
        self == .postgres ? "id BIGSERIAL PRIMARY KEY" : "id INTEGER PRIMARY KEY AUTOINCREMENT"
    }
}

/// Where the store's transactions run: a SQLite file or a PostgreSQL server.
public protocol StoreDatabase: Sendable {
    var dialect: SQLDialect { get }
    /// Runs `body` in one transaction and returns its result once committed; an error rolls it
    /// back. `writes: false` reads one consistent snapshot. Not cancelled with the calling task:
    /// a call ended by a shutdown still stores its end.
    func transaction<T: Sendable>(writes: Bool, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
}

/// What a transaction did that its caller acts on once it commits (one transaction's, on the one
/// thread that runs it).
public final class TransactionNotes {
    /// Events were appended: the store's local event readers are woken after the commit.
    var appendedEvents = false
    /// A row went into an outbox, or became sendable (a replay, an endpoint turned on): the
    /// outbox drains are woken after the commit.
    var wroteOutbox = false

    init() {}
}

/// A connection inside one transaction, as the store's methods see it: statements with `?`
/// placeholders, run synchronously (the store runs each transaction on a thread of its own).
public protocol SQLConnection {
    var dialect: SQLDialect { get }
    /// What this transaction did that is acted on once it commits.
    var notes: TransactionNotes { get }
    /// Runs `sql`; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int
    /// Runs `sql`; returns the rows it produced (a SELECT, or a statement with RETURNING).
    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow]
}

extension SQLConnection {
    @discardableResult
    public func execute(_ sql: String, _ arguments: any SQLValueConvertible...) throws -> Int {
        try execute(sql, arguments.map(\.sqlValue))
    }

    public func rows(_ sql: String, _ arguments: any SQLValueConvertible...) throws -> [SQLRow] {
        try rows(sql, arguments.map(\.sqlValue))
    }

    /// The first column of each row, as `T`.
    public func column<T: SQLValueConvertible>(_ type: T.Type, _ sql: String, _ arguments: [SQLValue] = []) throws -> [T] {
        try rows(sql, arguments).map { try $0.first() }
    }

    /// The first column of the first row as `T`; nil when there is no row or it holds NULL
    /// (`SELECT MAX(id)` of an empty table).
    public func scalar<T: SQLValueConvertible>(_ type: T.Type, _ sql: String, _ arguments: [SQLValue] = []) throws -> T? {
        guard let row = try rows(sql, arguments).first, row.values.first != .null else { return nil }
        return try row.first()
    }

    public func fetchAll<T: Decodable>(_ type: T.Type, _ sql: String, _ arguments: [SQLValue] = []) throws -> [T] {
        try rows(sql, arguments).map { try SQLRowDecoder.decode(T.self, from: $0) }
    }

    public func fetchOne<T: Decodable>(_ type: T.Type, _ sql: String, _ arguments: [SQLValue] = []) throws -> T? {
        try rows(sql, arguments).first.map { try SQLRowDecoder.decode(T.self, from: $0) }
    }

    /// Inserts `record`'s columns into `table` (column names quoted: a campaign has a `window`,
    /// which PostgreSQL reserves); with `returning`, returns that column of the new
    /// row (an autoincremented id), which both databases give through `RETURNING`. A nil `id` is
    /// left out, so the database numbers the row (PostgreSQL refuses NULL there; SQLite numbers it).
    @discardableResult
    public func insert<T: Encodable>(_ record: T, into table: String, returning: String? = nil) throws -> SQLValue? {
        let columns = try SQLRowEncoder.columns(of: record).filter { !($0.column == "id" && $0.value == .null) }
        let sql = "INSERT INTO \(table) (\(columns.map { "\"\($0.column)\"" }.joined(separator: ", "))) VALUES (\(placeholders(columns.count)))"
        guard let returning else {
            try execute(sql, columns.map(\.value))
            return nil
        }
        return try rows(sql + " RETURNING \(returning)", columns.map(\.value)).first?.value(returning)
    }

    /// Writes every column of `record` but `key` to the row whose `key` column equals the record's;
    /// returns whether a row was there.
    @discardableResult
    public func update<T: Encodable>(_ record: T, in table: String, key: String) throws -> Bool {
        let columns = try SQLRowEncoder.columns(of: record)
        guard let keyValue = columns.first(where: { $0.column == key })?.value else { throw SQLError.noSuchColumn(key, in: columns.map(\.column)) }
        let set = columns.filter { $0.column != key }
        let sql = "UPDATE \(table) SET \(set.map { "\"\($0.column)\" = ?" }.joined(separator: ", ")) WHERE \(key) = ?"
        return try execute(sql, set.map(\.value) + [keyValue]) > 0
    }

    /// `?, ?, ?` — `count` placeholders, for an IN list or a VALUES row.
    public func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
