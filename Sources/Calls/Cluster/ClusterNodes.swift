import Foundation

/// The nodes sharing this database: each holds a lease it renews with a heartbeat. A node whose
/// lease runs out is taken over by a survivor (`CallStore.takeOverLostNodes`), which deletes its
/// row in the same transaction; the node, if it comes back, finds its row gone and registers again.
public struct ClusterNodes: StoreRoom {
    let shared: SharedDatabase

    /// Records `node` as up (again) with a fresh heartbeat. `now` is read inside the transaction
    /// (as in `heartbeat`).
    public func register(_ node: String, now: @autoclosure @escaping @Sendable () -> Date = Date()) async throws {
        try await sqlWrite { try Self.register(node, now: now(), in: $0) }
    }

    static func register(_ node: String, now: Date, in sql: any SQLConnection) throws {
        try sql.execute("""
            INSERT INTO nodes (id, started_at, heartbeat_at) VALUES (?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at
            """, node, now, now)
    }

    /// Renews `node`'s lease. False when its row was gone: another node found the lease expired
    /// and took its calls over; the node is registered again.
    ///
    /// `now` is read inside the transaction, once it holds the writers' lock: a heartbeat that
    /// waited there behind another node's long write, stamped with the time it was asked for,
    /// would be written already old, and a survivor looking just then would take a live node over.
    @discardableResult
    public func heartbeat(node: String, now: @autoclosure @escaping @Sendable () -> Date = Date()) async throws -> Bool {
        try await sqlWrite { sql in
            let now = now()
            if try sql.execute("UPDATE nodes SET heartbeat_at = ? WHERE id = ?", now, node) == 1 { return true }
            try Self.register(node, now: now, in: sql)
            return false
        }
    }

    /// The nodes with a lease, and when each last renewed it.
    public func list() async throws -> [(id: String, heartbeatAt: Date)] {
        try await sqlRead { sql in
            try sql.rows("SELECT id, heartbeat_at FROM nodes ORDER BY id", []).map { (id: try $0.get("id"), heartbeatAt: try $0.get("heartbeat_at")) }
        }
    }
}
