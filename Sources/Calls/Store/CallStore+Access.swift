import GRDB

extension CallStore {
    /// Runs `value` on a reader connection and returns its result. Unlike GRDB's own async `read`,
    /// it does not give up when the calling task is cancelled: a call's task is cancelled when the
    /// server shuts down, and what it reads then (its retry policy) still decides what it writes.
    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            pool.asyncRead { database in
                continuation.resume(with: Result { try value(database.get()) })
            }
        }
    }

    /// Runs `updates` in one transaction on the writer and returns its result once committed.
    /// Unlike GRDB's own async `write`, it is not cancelled with the calling task: a call ended by
    /// a shutdown still stores its end — nothing the server accepted is dropped on the way out.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            pool.asyncWrite(updates) { _, result in continuation.resume(with: result) }
        }
    }
}
