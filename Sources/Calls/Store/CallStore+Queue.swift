import Foundation

/// The queue the nodes sharing this database share: a node claims the queued calls it will dial
/// (`calls.node_id`), and when a node's lease (`ClusterNodes`) runs out, a surviving node closes
/// what it left behind. Every decision is one transaction, so two nodes can never claim the same
/// call or both take over one lost node.
extension CallStore {
    /// SQL: the state in `column` is a live call's (dialing, ringing, connected).
    static func isLive(_ column: String = "state") -> String {
        "\(column) IN (\(CallState.allCases.filter(\.isLive).map { "'\($0.rawValue)'" }.joined(separator: ", ")))"
    }

    /// SQL: the state in `column` is an open call's, queued or live (one open call per number).
    static func isOpen(_ column: String = "state") -> String {
        "(\(column) = 'queued' OR \(isLive(column)))"
    }

    /// How many calls hold a place under `max_concurrent_calls`: live ones, and queued ones a node
    /// has claimed and is about to dial.
    static func busyCount(in sql: any SQLConnection) throws -> Int {
        try sql.scalar(Int.self, "SELECT COUNT(*) FROM calls WHERE \(isLive()) OR (state = 'queued' AND node_id IS NOT NULL)", []) ?? 0
    }

    /// Gives every claim `node` holds on a queued call back to the queue; returns those calls.
    @discardableResult
    static func releaseClaims(of node: String, in sql: any SQLConnection) throws -> [String] {
        let released = try sql.column(String.self, "SELECT outbound_id FROM calls WHERE node_id = ? AND state = 'queued' ORDER BY created_at", [.text(node)])
        try sql.execute("UPDATE calls SET node_id = NULL WHERE node_id = ? AND state = 'queued'", node)
        if !released.isEmpty { try announceQueueChange(in: sql) }
        return released
    }

    /// Claims for `node` the queued calls it may dial now, best first: at most `room` (what the
    /// node itself can take), and no more than keeps every node's busy calls within `maxConcurrent`.
    /// A claimed call is skipped by every other node until it is dialed, re-queued or released.
    ///
    /// One claim takes at most this node's share of the free places — free ÷ nodes with a lease,
    /// rounded up — so that the node polling first cannot take every place each time calls end
    /// together and leave the others idle; what it leaves is claimed by the next poll, its own or
    /// another node's, so no place stays free for longer than one poll.
    public func claimDueCalls(node: String, room: Int, maxConcurrent: Int, dialableCampaigns: Set<String>, now: Date = Date()) async throws -> [CallRecord] {
        guard room > 0 else { return [] }
        let isDue = Self.dueCondition(dialableCampaigns: dialableCampaigns, now: now)
        // Most polls can claim nothing — none due, or every place busy (a campaign's long queue):
        // a read says so without the writers' lock, which every node would otherwise take ten
        // times a second (and a node stalled inside it stalls them all). The count under the lock
        // below is the one that decides.
        let (anyDue, busyNow) = try await sqlRead { sql in
            let (condition, values) = isDue(sql)
            return (try sql.scalar(Int.self, "SELECT COUNT(*) FROM (SELECT 1 FROM calls WHERE \(condition) LIMIT 1) AS due", values) ?? 0,
                    try Self.busyCount(in: sql))
        }
        guard anyDue > 0, busyNow < maxConcurrent else { return [] }
        let claimed: [CallRecord] = try await sqlWrite { sql in
            let busy = try Self.busyCount(in: sql)
            let free = maxConcurrent - busy   // below zero when the limit was lowered under what is busy
            guard free > 0 else { return [] }
            let nodes = max(1, try sql.scalar(Int.self, "SELECT COUNT(*) FROM nodes", []) ?? 1)
            let take = min(room, free / nodes + (free % nodes == 0 ? 0 : 1))
            let (condition, values) = isDue(sql)
            let due = try sql.fetchAll(CallRecord.self, """
                SELECT * FROM calls WHERE \(condition)
                ORDER BY priority DESC, created_at LIMIT ?\(sql.dialect.skipLocked)
                """, values + [.integer(Int64(take))])
            for call in due {
                try sql.execute("UPDATE calls SET node_id = ? WHERE outbound_id = ?", node, call.outboundId)
            }
            return due.map { var claimed = $0; claimed.nodeId = node; return claimed }
        }
        return try claimed.map(opened)
    }

    /// Unclaimed queued calls due at `now`; a paused campaign's call, or one out of its window, waits.
    static func dueCondition(dialableCampaigns: Set<String>, now: Date) -> @Sendable (any SQLConnection) -> (condition: String, values: [SQLValue]) {
        let campaigns = dialableCampaigns.sorted()
        return { sql in
            let campaign = campaigns.isEmpty ? "campaign_id IS NULL" : "(campaign_id IS NULL OR campaign_id IN (\(sql.placeholders(campaigns.count))))"
            return ("state = 'queued' AND node_id IS NULL AND (scheduled_at IS NULL OR scheduled_at <= ?) AND (next_attempt_at IS NULL OR next_attempt_at <= ?) AND \(campaign)",
                    [.date(now), .date(now)] + campaigns.map(\.sqlValue))
        }
    }

    /// Whether a call is due and unclaimed: one that waits for a place, here or on another node.
    public func hasDueCalls(dialableCampaigns: Set<String>, now: Date = Date()) async throws -> Bool {
        let isDue = Self.dueCondition(dialableCampaigns: dialableCampaigns, now: now)
        return try await sqlRead { sql in
            let (condition, values) = isDue(sql)
            return (try sql.scalar(Int.self, "SELECT COUNT(*) FROM (SELECT 1 FROM calls WHERE \(condition) LIMIT 1) AS due", values) ?? 0) > 0
        }
    }

    /// The earliest time after `now` at which an unclaimed queued call becomes due (its
    /// `scheduled_at` or a retry's `next_attempt_at`), or nil: the call manager sleeps until then.
    /// A call waiting on both may be given the earlier of the two: a wake-up too early only looks again.
    public func nextQueuedCallTime(after now: Date) async throws -> Date? {
        try await sqlRead { sql in
            let waiting = "state = 'queued' AND node_id IS NULL"
            let scheduled = try sql.scalar(Date.self, "SELECT MIN(scheduled_at) FROM calls WHERE \(waiting) AND scheduled_at > ?", [.date(now)])
            let retry = try sql.scalar(Date.self, "SELECT MIN(next_attempt_at) FROM calls WHERE \(waiting) AND next_attempt_at > ?", [.date(now)])
            return [scheduled, retry].compactMap { $0 }.min()
        }
    }

    /// Gives back `node`'s claim on a call it did not dial (still queued).
    public func releaseClaim(id: String, node: String) async throws {
        try await sqlWrite { sql in
            if try sql.execute("UPDATE calls SET node_id = NULL WHERE outbound_id = ? AND node_id = ? AND state = 'queued'", id, node) > 0 {
                try Self.announceQueueChange(in: sql)
            }
        }
    }

    /// What a surviving node did for one node whose lease ran out.
    public struct NodeTakeover: Sendable, Equatable {
        public var node: String
        /// Calls it had live, now `failed / node_lost` (or queued again, as the retry policy says).
        public var closed: [String]
        /// Queued calls it had claimed but not dialed, back in the queue for any node.
        public var released: [String]
    }

    /// Takes over every node (but `survivor`) whose heartbeat is older than `lease` seconds: its
    /// live calls end `failed / node_lost` — queued again when `retryAt` says so — and its claims
    /// on queued calls are released. The lost node's row goes in the same transaction, so another
    /// survivor doing the same finds nothing left to take.
    public func takeOverLostNodes(survivor: String, lease: TimeInterval, now: @autoclosure @escaping @Sendable () -> Date = Date(),
                                  retryAt: @escaping @Sendable (CallRecord) -> Date?) async throws -> [NodeTakeover] {
        try await sqlWrite { [self] sql in
            let now = now()   // read once this transaction holds the writers' lock (see `ClusterNodes.heartbeat`)
            let lost = try sql.column(String.self, "SELECT id FROM nodes WHERE heartbeat_at < ? AND id <> ? ORDER BY id",
                                      [.date(now.addingTimeInterval(-lease)), .text(survivor)])
            return try lost.map { node in
                let live = try sql.fetchAll(CallRecord.self, "SELECT * FROM calls WHERE node_id = ? AND \(Self.isLive()) ORDER BY created_at", [.text(node)])
                for call in live {
                    try endAttempt(id: call.outboundId, in: .failed, reason: "node_lost", retryAt: retryAt(try opened(call)), now: now, in: sql)
                }
                let released = try Self.releaseClaims(of: node, in: sql)
                try sql.execute("DELETE FROM nodes WHERE id = ?", node)
                return NodeTakeover(node: node, closed: live.map(\.outboundId), released: released)
            }
        }
    }
}
