import Foundation
import GRDB

/// One value bound to, or read from, SQL — the same on SQLite and PostgreSQL.
///
/// Each database stores some of these its own way: SQLite has no boolean or date type (a bool is
/// 0 or 1, a date is GRDB's `yyyy-MM-dd HH:mm:ss.SSS` text, so files written before this layer read
/// the same), PostgreSQL has `boolean` and `timestamptz`. The conversions below accept either form,
/// so a record reads alike from both.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case bool(Bool)
    case date(Date)
}

/// A Swift type stored in one column.
public protocol SQLValueConvertible {
    var sqlValue: SQLValue { get }
    /// Nil when `value` cannot be read as this type (`.null` included).
    init?(sqlValue value: SQLValue)
}

extension String: SQLValueConvertible {
    public var sqlValue: SQLValue { .text(self) }
    public init?(sqlValue value: SQLValue) {
        guard case .text(let text) = value else { return nil }
        self = text
    }
}

extension Int64: SQLValueConvertible {
    public var sqlValue: SQLValue { .integer(self) }
    public init?(sqlValue value: SQLValue) {
        switch value {
        case .integer(let integer): self = integer
        case .real(let real) where real == real.rounded(): self = Int64(real)
        case .bool(let bool): self = bool ? 1 : 0
        default: return nil
        }
    }
}

extension Int: SQLValueConvertible {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
    public init?(sqlValue value: SQLValue) {
        guard let integer = Int64(sqlValue: value) else { return nil }
        self = Int(integer)
    }
}

extension Double: SQLValueConvertible {
    public var sqlValue: SQLValue { .real(self) }
    public init?(sqlValue value: SQLValue) {
        switch value {
        case .real(let real): self = real
        case .integer(let integer): self = Double(integer)
        default: return nil
        }
    }
}

extension Bool: SQLValueConvertible {
    public var sqlValue: SQLValue { .bool(self) }
    public init?(sqlValue value: SQLValue) {
        switch value {
        case .bool(let bool): self = bool
        case .integer(let integer): self = integer != 0   // SQLite
        default: return nil
        }
    }
}

extension Date: SQLValueConvertible {
    public var sqlValue: SQLValue { .date(self) }
    public init?(sqlValue value: SQLValue) {
        switch value {
        case .date(let date): self = date
        case .text(let text):   // SQLite: the text GRDB wrote (and reads) for a Date
            guard let date = Date.fromDatabaseValue(text.databaseValue) else { return nil }
            self = date
        case .integer, .real:   // SQLite: a Unix time, as GRDB also accepts
            guard let seconds = Double(sqlValue: value) else { return nil }
            self = Date(timeIntervalSince1970: seconds)
        default: return nil
        }
    }
}

extension Data: SQLValueConvertible {
    public var sqlValue: SQLValue { .blob(self) }
    public init?(sqlValue value: SQLValue) {
        switch value {
        case .blob(let data): self = data
        case .text(let text): self = Data(text.utf8)
        default: return nil
        }
    }
}

extension Optional: SQLValueConvertible where Wrapped: SQLValueConvertible {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
    public init?(sqlValue value: SQLValue) {
        if value == .null { self = .none; return }
        guard let wrapped = Wrapped(sqlValue: value) else { return nil }
        self = .some(wrapped)
    }
}

/// One row a query returned: its columns by name, in the order the query named them.
public struct SQLRow: Sendable, Equatable {
    public var columns: [String]
    public var values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value in column `name`; nil when the row has no such column.
    public func value(_ name: String) -> SQLValue? {
        columns.firstIndex(of: name).map { values[$0] }
    }

    /// Column `name` read as `T`; throws naming the column when it is missing or holds another type.
    public func get<T: SQLValueConvertible>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard let value = value(name) else { throw SQLError.noSuchColumn(name, in: columns) }
        guard let read = T(sqlValue: value) else { throw SQLError.unreadable(column: name, value: value, as: "\(T.self)") }
        return read
    }

    /// The first column read as `T` (`SELECT COUNT(*) …`).
    public func first<T: SQLValueConvertible>(as type: T.Type = T.self) throws -> T {
        guard let name = columns.first else { throw SQLError.noSuchColumn("(first)", in: columns) }
        return try get(name)
    }
}

public enum SQLError: Error, Equatable, CustomStringConvertible {
    case noSuchColumn(String, in: [String])
    case unreadable(column: String, value: SQLValue, as: String)
    /// A statement the database refused, with its message and the SQL.
    case statement(message: String, sql: String)
    case notConnected(String)

    public var description: String {
        switch self {
        case .noSuchColumn(let name, let columns): "no column \(name) in the row (it has \(columns.joined(separator: ", ")))"
        case .unreadable(let column, let value, let type): "column \(column) holds \(value), which cannot be read as \(type)"
        case .statement(let message, let sql): "\(message) — in: \(sql)"
        case .notConnected(let reason): "not connected to the database: \(reason)"
        }
    }
}
