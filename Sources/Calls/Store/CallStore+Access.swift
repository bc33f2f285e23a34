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
        let (value, appendedEvents) = try await VirtualTimeExecutor.outside {
            try await database.transaction(writes: true) { sql in (try updates(sql), sql.notes.appendedEvents) }
        }
        if appendedEvents { eventBell.ring() }
        return value
    }
}
