import Foundation
import Logging
import NIOCore
import PostgresNIO

/// `SQLConnection` over one PostgresNIO connection. The store runs a transaction's body on a
/// thread of its own, so each statement waits for its result there (never on an event loop).
/// `?` placeholders become `$1…$n`; bools and dates are bound as PostgreSQL's own types.
struct PostgresSQLConnection: SQLConnection {
    let connection: PostgresConnection
    let logger: Logger
    let notes = TransactionNotes()
    var dialect: SQLDialect { .postgres }

    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try run(sql, arguments).metadata.rows ?? 0
    }

    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        try run(sql, arguments).rows.map { row in
            var columns: [String] = []
            var values: [SQLValue] = []
            for cell in row {
                columns.append(cell.columnName)
                values.append(try Self.value(cell))
            }
            return SQLRow(columns: columns, values: values)
        }
    }

    private func run(_ sql: String, _ arguments: [SQLValue]) throws -> PostgresQueryResult {
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .null: binds.appendNull()
            case .integer(let integer): binds.append(integer)
            case .real(let real): binds.append(real)
            case .text(let text): binds.append(text)
            case .blob(let data): binds.append(ByteBuffer(bytes: data))
            case .bool(let bool): binds.append(bool)
            case .date(let date): binds.append(date)
            }
        }
        let query = PostgresQuery(unsafeSQL: Self.numberedPlaceholders(sql), binds: binds)
        // A statement written to a connection the server has closed (idle-in-transaction timeout,
        // a restart) is dropped by the channel, and its result never comes: while one is awaited,
        // the connection is looked at every second. (Not `closeFuture.whenComplete`: every
        // statement would leave a callback on a connection that lives for hours.)
        let answer = connection.eventLoop.makePromise(of: PostgresQueryResult.self)
        connection.query(query, logger: logger).cascade(to: answer)
        let watch = connection.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { [connection] _ in
            if connection.isClosed { answer.fail(SQLError.notConnected("the PostgreSQL server closed the connection")) }
        }
        answer.futureResult.whenComplete { _ in watch.cancel() }
        do {
            return try answer.futureResult.wait()
        } catch let error as PSQLError {
            throw SQLError.statement(message: error.serverInfo?[.message] ?? "\(error.code)", sql: sql)
        }
    }

    /// `?` → `$1`, `$2`, … outside quoted text and identifiers.
    static func numberedPlaceholders(_ sql: String) -> String {
        var result = ""
        var number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }

    static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .float4, .float8, .numeric: return .real(try cell.decode(Double.self))
        case .bool: return .bool(try cell.decode(Bool.self))
        case .timestamptz, .timestamp, .date: return .date(try cell.decode(Date.self))
        case .bytea: return .blob(Data(buffer: try cell.decode(ByteBuffer.self)))
        default: return .text(try cell.decode(String.self))
        }
    }
}
