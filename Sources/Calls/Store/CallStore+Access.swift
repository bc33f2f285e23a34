import Bridge
import Pipeline

/// In virtual time (`VirtualTimeExecutor`) the clock stands still while a transaction runs on the
/// database's own threads: what a call stores is stored at the moment it happened.
extension CallStore {
    /// Runs `value` on one consistent snapshot and returns its result. Unlike GRDB's own async
    /// `read`, it does not give up when the calling task is cancelled: a call's task is cancelled
    /// when the server shuts down, and what it reads then (its retry policy) still decides what it writes.
    func sqlRead<T: Sendable>(_ value: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await VirtualTimeExecutor.outside { try await database.transaction(writes: false, value) }
    }

    /// Runs `updates` in one transaction and returns its result once committed. Not cancelled with
    /// the calling task: a call ended by a shutdown still stores its end — nothing the server
    /// accepted is dropped on the way out. A transaction that appended events wakes this node's
    /// event readers (`waitForEvents`) once it has committed.
    @discardableResult
    func sqlWrite<T: Sendable>(_ updates: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
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
