import Bridge
import GRDB
import Pipeline
import Synchronization

/// The one database every store type writes to (`CallStore` and its rooms: campaigns,
/// do-not-call, knowledge, webhooks, nodes): where their transactions run, and the bells a commit
/// rings — the event readers' and the outbox drains'.
final class SharedDatabase: Sendable {
    /// Where every transaction runs: the SQLite file or the PostgreSQL server.
    let database: any StoreDatabase
    /// The SQLite file's pool, for what only SQLite has (journal mode, WAL checkpoints); nil on PostgreSQL.
    let pool: DatabasePool?
    /// Rung when events are committed, this node's (`write`) or another's (PostgreSQL); see `CallStore.waitForEvents`.
    let eventBell = EventBell()
    /// Counts this process's committed transactions that wrote to an outbox (webhooks, `on_end`
    /// tools, analyses): a drain reads its outbox when this moved (`OutboxReadGate`).
    let outboxWrites = Atomic<Int>(0)
    /// The outbox drains' alarms, rung after each of those commits (`watchingOutboxes`).
    private let outboxAlarms = Mutex<[ObjectIdentifier: WakeAlarm]>([:])

    init(database: any StoreDatabase, pool: DatabasePool?) {
        self.database = database
        self.pool = pool
    }

    /// In virtual time (`VirtualTimeExecutor`) the clock stands still while a transaction runs on
    /// the database's own threads: what a call stores is stored at the moment it happened.
    ///
    /// Runs `value` on one consistent snapshot and returns its result. Unlike GRDB's own async
    /// `read`, it does not give up when the calling task is cancelled: a call's task is cancelled
    /// when the server shuts down, and what it reads then (its retry policy) still decides what it writes.
    func read<T: Sendable>(_ value: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await VirtualTimeExecutor.outside { try await database.transaction(writes: false, value) }
    }

    /// Runs `updates` in one transaction and returns its result once committed. Not cancelled with
    /// the calling task: a call ended by a shutdown still stores its end — nothing the server
    /// accepted is dropped on the way out. A transaction that appended events wakes this node's
    /// event readers once it has committed; one that wrote to an outbox wakes the drains.
    func write<T: Sendable>(_ updates: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        let (value, appendedEvents, wroteOutbox) = try await VirtualTimeExecutor.outside {
            try await database.transaction(writes: true) { sql in (try updates(sql), sql.notes.appendedEvents, sql.notes.wroteOutbox) }
        }
        if appendedEvents { eventBell.ring() }
        if wroteOutbox {
            outboxWrites.add(1, ordering: .relaxed)
            for alarm in outboxAlarms.withLock({ Array($0.values) }) { alarm.ring() }
        }
        return value
    }

    /// Runs `body` (an outbox drain) with `alarm` rung after every commit that wrote to an outbox.
    func watchingOutboxes(_ alarm: WakeAlarm, _ body: () async -> Void) async {
        outboxAlarms.withLock { $0[ObjectIdentifier(alarm)] = alarm }
        await body()
        _ = outboxAlarms.withLock { $0.removeValue(forKey: ObjectIdentifier(alarm)) }
    }
}
