import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// A PostgreSQL database the store's transactions run on: at most `maxConnections` connections,
/// opened as needed, each transaction on a thread of its own pool so its statements can wait for
/// their results (the store's transaction bodies are synchronous, as GRDB's are).
///
/// Every writing transaction first takes one transaction-scoped advisory lock. The store's writes
/// were made for SQLite's single writer — count the busy calls, then claim; check the holder, then
/// end — and the lock gives them that same isolation across every node sharing the database, with
/// no retry loop. Reads take no lock: each sees one snapshot.
public final class PostgresStoreDatabase: StoreDatabase {
    public var dialect: SQLDialect { .postgres }
    /// Where `postgres://user:password@host:port/database` points.
    public struct Location: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var username: String
        public var password: String?
        public var database: String

        /// The URL schemes that name a PostgreSQL server.
        static let schemes = ["postgres", "postgresql"]

        /// Whether `location` is meant as a PostgreSQL URL (rather than a SQLite file's path).
        public static func isURL(_ location: String) -> Bool {
            schemes.contains { location.hasPrefix("\($0)://") }
        }

        public init(url: String) throws {
            let parts = URLComponents(string: url)
            guard let parts, Self.schemes.contains(parts.scheme ?? ""),
                  let host = parts.host, !host.isEmpty, let username = parts.user, !username.isEmpty else {
                // The address is not repeated: it may hold a password.
                let what = parts?.scheme.map { "a \($0): address" } ?? "text that is not a URL"
                throw SQLError.notConnected("database.url must look like postgres://user:password@host:5432/database; it is \(what), or lacks a host or user")
            }
            let database = String(parts.path.drop(while: { $0 == "/" }))
            self.host = host
            self.port = parts.port ?? 5432
            self.username = username.removingPercentEncoding ?? username
            self.password = parts.password?.removingPercentEncoding
            self.database = database.isEmpty ? username : database
        }

        /// Where it points, without the password (for logs).
        public var address: String { "postgres://\(username)@\(host):\(port)/\(database)" }
    }

    /// The lock every writing transaction takes (any constant both nodes agree on: "VoBr").
    static let writerLock: Int64 = 0x566F_4272

    public let location: Location
    private let maxConnections: Int
    private let threads: NIOThreadPool
    private let idle = NIOLockedValueBox(Idle())
    private let logger: Logger

    private struct Idle {
        var connections: [PostgresConnection] = []
        var open = 0
        var waiting: [CheckedContinuation<PostgresConnection?, Never>] = []
        var nextID = 1
    }

    public init(url: String, maxConnections: Int = 8, logger: Logger = Logger(label: "voicebridge.postgres")) throws {
        location = try Location(url: url)
        self.maxConnections = max(1, maxConnections)
        self.logger = logger
        threads = NIOThreadPool(numberOfThreads: self.maxConnections)
        threads.start()
    }

    deinit {
        // Each connection is kept until its close completes: PostgresNIO traps on one freed open.
        for connection in idle.withLockedValue({ $0.connections }) { connection.close().whenComplete { _ in withExtendedLifetime(connection) {} } }
        threads.shutdownGracefully { _ in }
    }

    /// Runs `body` in one transaction and returns its result once committed; a thrown error rolls
    /// it back. `writes`: takes the writers' lock first.
    public func transaction<T: Sendable>(writes: Bool, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        let connection = try await lend()
        let logger = logger
        do {
            let result = try await threads.runIfActive(eventLoop: connection.eventLoop) {
                let sql = PostgresSQLConnection(connection: connection, logger: logger)
                try sql.execute("BEGIN", [])
                do {
                    if writes { try sql.execute("SELECT pg_advisory_xact_lock(?)", [.integer(Self.writerLock)]) }
                    let result = try body(sql)
                    try sql.execute("COMMIT", [])
                    return result
                } catch {
                    _ = try? sql.execute("ROLLBACK", [])
                    throw error
                }
            }.get()
            giveBack(connection)
            return result
        } catch {
            giveBack(connection)
            throw error
        }
    }

    /// An idle connection, a new one while fewer than `maxConnections` are open, or the next one
    /// given back.
    private func lend() async throws -> PostgresConnection {
        enum Next { case use(PostgresConnection), open(Int), wait }
        let next: Next = idle.withLockedValue { idle in
            if let connection = idle.connections.popLast() { return .use(connection) }
            guard idle.open < maxConnections else { return .wait }
            idle.open += 1
            idle.nextID += 1
            return .open(idle.nextID)
        }
        switch next {
        case .use(let connection): return connection
        case .open(let id):
            do {
                return try await PostgresConnection.connect(configuration: connectionConfiguration, id: id, logger: logger)
            } catch {
                idle.withLockedValue { $0.open -= 1 }
                throw SQLError.notConnected("cannot connect to PostgreSQL at \(location.host):\(location.port) as \(location.username): \(String(reflecting: error))")
            }
        case .wait:
            let handed = await withCheckedContinuation { continuation in
                idle.withLockedValue { $0.waiting.append(continuation) }
            }
            if let handed { return handed }
            return try await lend()   // nil: a connection closed, so one may be opened
        }
    }

    /// How long the server lets one of our sessions sit inside a transaction between statements.
    /// The store's transactions run their statements back to back, so a longer gap means the node
    /// has stalled (SIGSTOP, a paused VM) — perhaps holding the writers' lock every node waits on.
    /// The server then ends that session, which rolls the transaction back and frees the lock.
    static let idleInTransactionTimeout = "5s"

    private var connectionConfiguration: PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(host: location.host, port: location.port, username: location.username,
                                                             password: location.password, database: location.database, tls: .disable)
        configuration.options.additionalStartupParameters = [("idle_in_transaction_session_timeout", Self.idleInTransactionTimeout)]
        return configuration
    }

    /// Calls `announced` once listening starts and then for every notification on `channel` (a
    /// NOTIFY any node's transaction committed), until the calling task is cancelled. It keeps a
    /// connection of its own; a lost one is opened again a second later (and `announced` called,
    /// since notifications sent meanwhile were missed).
    public func listen(_ channel: String, _ announced: @escaping @Sendable () -> Void) async {
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: connectionConfiguration, id: 0, logger: logger)
                do {
                    try await connection.listen(on: channel) { notifications in
                        announced()
                        for try await _ in notifications { announced() }
                    }
                } catch {
                    if !Task.isCancelled { logger.warning("listening for notifications stopped", metadata: ["channel": "\(channel)", "error": "\(error)"]) }
                }
                try? await connection.close()
            } catch {
                logger.warning("cannot listen for notifications", metadata: ["channel": "\(channel)", "error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Returns `connection` to the next waiter or the idle list; a closed one is dropped.
    private func giveBack(_ connection: PostgresConnection) {
        let waiter: CheckedContinuation<PostgresConnection?, Never>? = idle.withLockedValue { idle in
            if connection.isClosed { idle.open -= 1 } else if idle.waiting.isEmpty { idle.connections.append(connection) }
            return idle.waiting.isEmpty ? nil : idle.waiting.removeFirst()
        }
        waiter?.resume(returning: connection.isClosed ? nil : connection)
    }

    /// Closes every idle connection (the server is shutting down).
    public func close() async {
        let connections = idle.withLockedValue { idle in
            defer { idle.connections = []; idle.open = 0 }
            return idle.connections
        }
        for connection in connections { try? await connection.close() }
    }
}
