import Bridge
import Foundation
import GRDB

/// The database behind every call: one SQLite file (WAL journal), or a PostgreSQL server several
/// nodes share; one schema with versioned migrations.
///
/// Every state change is written here, with its event, in one transaction *before* anyone is told
/// about it, so whatever the dashboard has shown survives a crash.
public final class CallStore: SealingStoreRoom {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notFound(String)
        case invalidTransition(id: String, from: CallState, to: CallState)
        /// Another call to the same number is queued or live (`insert(_:onlyIfCalleeFree:)`).
        case calleeBusy(number: String, existing: String)
        /// The number is on the do-not-call list (`insert(_:onlyIfCalleeFree:)` checks outbound calls).
        case doNotCall(number: String)
        /// Data here was sealed with storage keys this store was not given (`missing`).
        case storageKeysMissing(missing: [String], configured: [String])
        /// `node` wrote to a call it no longer holds: its lease ran out and another node took the
        /// call over (`holder`: the node holding it now; nil: none, it waits in the queue or has ended).
        case notHolder(id: String, node: String, holder: String?)

        public var description: String {
            switch self {
            case .calleeBusy(let number, let existing): "a call to \(number) is already open (\(existing))"
            case .doNotCall(let number): "\(number) is on the do-not-call list"
            case .notFound(let id): "no call with id \(id)"
            case .invalidTransition(let id, let from, let to): "call \(id) cannot go from \(from.rawValue) to \(to.rawValue)"
            case .notHolder(let id, let node, let holder):
                "call \(id) is no longer held by node \(node) (\(holder.map { "node \($0) holds it" } ?? "no node holds it")): its lease ran out and another node took it over"
            case .storageKeysMissing(let missing, let configured) where configured.isEmpty:
                "the database holds data sealed with storage key \(missing.joined(separator: ", ")), but no storage.encryption_key is set"
            case .storageKeysMissing(let missing, let configured):
                "the database holds data sealed with storage key \(missing.joined(separator: ", ")), which is not configured"
                    + " (the configured key is \(configured.joined(separator: ", "))): set storage.encryption_key to the key the data was written with,"
                    + " or list it under storage.previous_encryption_keys and run `voicebridge rekey`"
            }
        }
    }

    /// The SQLite file, or where the PostgreSQL server is (without its password).
    public let path: String
    /// The database, its transactions and bells, which the domains' rooms share.
    let shared: SharedDatabase
    /// Seals transcripts, answers, summaries, metadata, contact variables and webhook payloads
    /// (and the recordings the call manager writes); nil: stored as plain text.
    public let cipher: StorageCipher?
    /// How numbers are read for comparison (`numbers.default_country`).
    public let numbers: NumberPlan

    /// Opens (creating if needed) the SQLite file at `path` and brings its schema up to date. With
    /// a `cipher`, refuses a database holding data sealed with keys the cipher does not have.
    public convenience init(path: String, cipher: StorageCipher? = nil, numbers: NumberPlan = .korea) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in try Self.prepareEncryption(db, cipher: cipher) }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.write { try Self.prepare($0.sql, cipher: cipher, numbers: numbers) }
        self.init(path: path, database: SQLiteStoreDatabase(pool: pool), pool: pool, cipher: cipher, numbers: numbers)
    }

    /// Nodes started together on one new file: switching it to WAL needs a lock that another
    /// opener may hold for a moment, and SQLite answers that switch with SQLITE_BUSY at once
    /// rather than through the busy timeout. So the open is tried again for up to 10 s, the task
    /// sleeping between tries (no thread is held).
    private static func openSQLite(_ path: String, cipher: StorageCipher?, numbers: NumberPlan) async throws -> CallStore {
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while true {
            do {
                return try CallStore(path: path, cipher: cipher, numbers: numbers)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Opens the store `location` names: a `postgres://user:password@host:port/database` URL
    /// selects PostgreSQL (every node of a cluster names the same one); anything else is a SQLite
    /// file's path. The schema is brought up to date and the storage keys checked as for a file.
    public static func open(_ location: String, cipher: StorageCipher? = nil, numbers: NumberPlan = .korea) async throws -> CallStore {
        guard PostgresStoreDatabase.Location.isURL(location) else { return try await openSQLite(location, cipher: cipher, numbers: numbers) }
        let database = try PostgresStoreDatabase(url: location)
        do {
            try await database.transaction(writes: true) { try prepare($0, cipher: cipher, numbers: numbers) }
        } catch {
            await database.close()
            throw error
        }
        return CallStore(path: database.location.address, database: database, pool: nil, cipher: cipher, numbers: numbers)
    }

    private init(path: String, database: any StoreDatabase, pool: DatabasePool?, cipher: StorageCipher?, numbers: NumberPlan) {
        self.path = path
        self.shared = SharedDatabase(database: database, pool: pool)
        self.cipher = cipher
        self.numbers = numbers
    }

    /// Brings the schema up to date and checks the storage keys, in one transaction (on
    /// PostgreSQL under the writers' lock, so nodes starting together migrate one at a time).
    private static func prepare(_ sql: any SQLConnection, cipher: StorageCipher?, numbers: NumberPlan) throws {
        try migrator.migrate(in: sql)
        try checkStorageKeys(cipher: cipher, in: sql)
        try fillCanonicalNumbers(numbers, in: sql)
    }

    /// Names of the migrations applied to this database, oldest first.
    public func appliedMigrations() async throws -> [String] {
        try await sqlRead { try Self.migrator.applied(in: $0) }
    }

    /// SQLite's journal mode (`wal`); nil on PostgreSQL.
    public func journalMode() async throws -> String? {
        guard shared.pool != nil else { return nil }
        return try await sqlRead { try $0.scalar(String.self, "PRAGMA journal_mode") }
    }

    /// Answers whether the database is reachable and consistent enough to serve (for /healthz).
    public func isHealthy() async -> Bool {
        (try? await sqlRead { try $0.scalar(Int.self, "SELECT 1") }) == 1
    }

    /// Closes the calls a crash of `node` left in dialing, ringing or connected (and live calls no
    /// node claimed, from before nodes were recorded): they are `failed` with reason
    /// `interrupted_by_restart`. Queued calls stay queued; the node's claims on them are released.
    /// Other nodes' calls are theirs (or, once their lease runs out, `takeOverLostNodes`'s). The
    /// node is recorded up in the same transaction — before the server answers `/healthz`: the
    /// lease loop registered it only once serving, and a loaded node was healthy before it was in
    /// the cluster's table. Returns the ids it closed.
    @discardableResult
    public func reconcileAfterRestart(node: String, now: Date = Date()) async throws -> [String] {
        try await sqlWrite { [self] sql in
            try ClusterNodes.register(node, now: now, in: sql)
            let stranded = try sql.fetchAll(CallRecord.self, "SELECT * FROM calls WHERE \(Self.isLive()) AND (node_id IS NULL OR node_id = ?)", [.text(node)])
            try Self.releaseClaims(of: node, in: sql)
            for var call in stranded {
                let from = call.state
                call.state = .failed
                call.failureReason = "interrupted_by_restart"
                call.completedAt = now
                call.lastOutcome = CallState.failed.rawValue
                try sql.update(call, in: "calls", key: "outbound_id")
                try Self.closeAttempt(callID: call.outboundId, outcome: .failed, reason: "interrupted_by_restart", at: now, in: sql)
                try Self.append(CallEvent(outboundId: call.outboundId, type: "outbound_failed",
                                          payload: Self.json(["state": "failed", "previous_state": from.rawValue, "reason": "interrupted_by_restart"]),
                                          createdAt: now), in: sql)
                try enqueueCallWebhook(call, now: now, in: sql)
                try Self.announceQueueChange(in: sql)
            }
            return stranded.map(\.outboundId)
        }
    }

    /// Stores a new call with its `outbound_queued` (or `inbound_…`) event; returns the call as
    /// stored and the event. A call's id is 32 random bits, so among a few thousand calls two can
    /// draw the same one: a call whose id is taken is stored under a fresh one (the returned call
    /// carries it). An outbound call to a number on the do-not-call list is refused. With
    /// `onlyIfCalleeFree`, refuses (atomically, so two racing requests cannot both pass) when an
    /// outbound call to the same number is still open.
    @discardableResult
    public func insert(_ call: CallRecord, onlyIfCalleeFree: Bool = false) async throws -> (call: CallRecord, event: CallEvent) {
        try await sqlWrite { [self] in try insert(call, onlyIfCalleeFree: onlyIfCalleeFree, in: $0) }
    }

    /// `insert(_:onlyIfCalleeFree:)` inside a transaction the caller holds (writes are serialised,
    /// so an id found free here is still free at the insert).
    @discardableResult
    func insert(_ call: CallRecord, onlyIfCalleeFree: Bool = false, in sql: any SQLConnection) throws -> (call: CallRecord, event: CallEvent) {
        var call = call
        while try sql.scalar(Int.self, "SELECT 1 FROM calls WHERE outbound_id = ?", [.text(call.outboundId)]) != nil {
            call.outboundId = CallRecord.newID(direction: call.direction)
        }
        let canonical = numbers.storedKey(call.calleeNumber)
        call.calleeCanonical = canonical
        if call.direction == .outbound, try DoNotCallEntry.isListed(canonical: canonical, in: sql) {
            throw Failure.doNotCall(number: call.calleeNumber)
        }
        if onlyIfCalleeFree {
            if let existing = try sql.scalar(String.self, """
                SELECT outbound_id FROM calls WHERE callee_canonical = ? AND \(Self.isOpen()) AND direction = 'outbound' LIMIT 1
                """, [.text(canonical)]) {
                throw Failure.calleeBusy(number: call.calleeNumber, existing: existing)
            }
        }
        try sql.insert(sealed(call), into: "calls")
        if call.attemptCount > 0 { try Self.openAttempt(call, at: call.startedAt ?? call.createdAt, in: sql) }   // inbound: answered already
        if call.state == .queued, call.nodeId == nil { try Self.announceQueueChange(in: sql) }
        let event = try Self.append(CallEvent(outboundId: call.outboundId, type: "\(call.direction.eventPrefix)_\(call.state.rawValue)",
                                              payload: Self.json(["state": call.state.rawValue]), createdAt: call.createdAt), in: sql)
        return (call, event)
    }

    public func call(id: String) async throws -> CallRecord? {
        try await sqlRead { try Self.call(id: id, in: $0) }.map(opened)
    }

    static func call(id: String, in sql: any SQLConnection) throws -> CallRecord? {
        try sql.fetchOne(CallRecord.self, "SELECT * FROM calls WHERE outbound_id = ?", [.text(id)])
    }

    /// The call a provider knows by `externalID` (SIP Call-ID or Twilio CallSid), newest first.
    public func call(externalID: String) async throws -> CallRecord? {
        try await sqlRead { try $0.fetchOne(CallRecord.self, "SELECT * FROM calls WHERE call_id = ? ORDER BY created_at DESC LIMIT 1", [.text(externalID)]) }
            .map(opened)
    }

    public func calls(inStates states: [CallState]) async throws -> [CallRecord] {
        guard !states.isEmpty else { return [] }
        return try await sqlRead { sql in
            try sql.fetchAll(CallRecord.self, "SELECT * FROM calls WHERE state IN (\(sql.placeholders(states.count))) ORDER BY priority DESC, created_at",
                             states.map(\.rawValue.sqlValue))
        }.map(opened)
    }

    /// Moves a call to `state`, stamping the matching time, and appends the event — atomically. A
    /// final state also writes the call's webhook deliveries in the same transaction.
    /// Throws `invalidTransition` when the state machine does not allow it, or the call is not in
    /// `expected` (when given: a check and a move no other writer can come between), leaving the row as it was.
    /// With `heldBy`, throws `notHolder` unless that node holds the call (claimed it, or runs it):
    /// the fence that keeps a node which stalled past its lease from dialing or ending a call
    /// another node has taken over.
    @discardableResult
    public func transition(id: String, to state: CallState, from expected: CallState? = nil, reason: String? = nil, heldBy node: String? = nil,
                           now: Date = Date()) async throws -> (CallRecord, CallEvent) {
        let (call, event) = try await sqlWrite { [self] in try transition(id: id, to: state, from: expected, reason: reason, heldBy: node, now: now, in: $0) }
        return (try opened(call), event)
    }

    /// Ends an attempt in `state`; with `retryAt`, queues the next attempt in the same transaction,
    /// and the call's webhook waits for its final outcome instead of announcing this one.
    /// With `heldBy`, only while that node holds the call (see `transition`).
    public func endAttempt(id: String, in state: CallState, reason: String, retryAt: Date?, heldBy node: String? = nil, now: Date = Date()) async throws {
        try await sqlWrite { [self] sql in try endAttempt(id: id, in: state, reason: reason, retryAt: retryAt, heldBy: node, now: now, in: sql) }
    }

    /// `endAttempt(id:in:reason:retryAt:now:)` inside a transaction the caller holds.
    func endAttempt(id: String, in state: CallState, reason: String, retryAt: Date?, heldBy node: String? = nil, now: Date, in sql: any SQLConnection) throws {
        try transition(id: id, to: state, reason: reason, announce: retryAt == nil, heldBy: node, now: now, in: sql)
        guard let retryAt else { return }
        try sql.execute("UPDATE calls SET next_attempt_at = ? WHERE outbound_id = ?", retryAt, id)
        try transition(id: id, to: .queued, reason: "retry after \(reason)", now: now, in: sql)   // last_outcome keeps this attempt's end
    }

    /// `transition(id:to:reason:now:)` inside a transaction the caller holds; `announce: false`
    /// keeps a final state's webhook back (a retry follows in the same transaction).
    @discardableResult
    func transition(id: String, to state: CallState, from expected: CallState? = nil, reason: String? = nil, announce: Bool = true,
                    heldBy node: String? = nil, now: Date, in sql: any SQLConnection) throws -> (CallRecord, CallEvent) {
        guard var call = try Self.call(id: id, in: sql) else { throw Failure.notFound(id) }
        if let node, call.nodeId != node { throw Failure.notHolder(id: id, node: node, holder: call.nodeId) }
        guard call.state.canTransition(to: state), expected.map({ $0 == call.state }) ?? true else {
            throw Failure.invalidTransition(id: id, from: call.state, to: state)
        }
        call.state = state
        switch state {
        case .queued: call.completedAt = nil; call.failureReason = nil; call.nodeId = nil   // any node may dial it again
        case .dialing: call.startedAt = now; call.attemptCount += 1
        case .connected: call.answeredAt = now
        case _ where state.isTerminal:
            call.completedAt = now; call.failureReason = reason; call.lastOutcome = state.rawValue
            try Self.closeAttempt(callID: id, outcome: state, reason: reason, at: now, in: sql)
        default: break
        }
        try sql.update(call, in: "calls", key: "outbound_id")
        if state == .dialing { try Self.openAttempt(call, at: now, in: sql) }
        var payload = ["state": state.rawValue, "attempt_count": String(call.attemptCount)]
        if let reason { payload["reason"] = reason }
        let event = try Self.append(CallEvent(outboundId: id, type: "\(call.direction.eventPrefix)_\(state.rawValue)",
                                              payload: Self.json(payload), createdAt: now), in: sql)
        if state.isTerminal, announce { try enqueueCallWebhook(call, now: now, in: sql) }
        if state == .queued || state.isTerminal { try Self.announceQueueChange(in: sql) }
        return (call, event)
    }

    /// Events after `id` (exclusive), oldest first: what a reconnecting client missed.
    public func events(after id: Int64 = 0, limit: Int = 1000) async throws -> [CallEvent] {
        try await sqlRead { try $0.fetchAll(CallEvent.self, "SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?", [.integer(id), .integer(Int64(limit))]) }
            .map(opened)
    }

    static func json(_ object: [String: String]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// `value` as the JSON text a column keeps (a flow's result, a report, a tool's declaration).
    static func jsonText(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}

extension CallStore {
    /// Closes the database (a SQLite file's WAL checkpointed into it first); later calls throw.
    public func close() async throws {
        if let database = shared.database as? PostgresStoreDatabase { await database.close() }
        try checkpointAndClose()
    }

    /// Moves SQLite's write-ahead log into the main file and empties it (older frames may hold
    /// values since rewritten); nothing on PostgreSQL.
    func checkpoint() async throws {
        guard let pool = shared.pool else { return }
        _ = try await pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
    }

    /// Synchronous on purpose: GRDB's async access gives up in a cancelled task, and closing is
    /// the last thing a shutting-down server does.
    private func checkpointAndClose() throws {
        guard let pool = shared.pool else { return }
        _ = try pool.writeWithoutTransaction { db in
            try db.checkpoint(.truncate)
        }
        try pool.close()
    }
}

extension CallStore {
    /// The PostgreSQL channel a transaction that appended events notifies.
    static let eventsChannel = "voicebridge_events"
    /// The PostgreSQL channel a transaction notifies when it may have changed what the queue
    /// offers another node (`listenForQueueChanges`).
    static let queueChannel = "voicebridge_queue"

    /// Wakes every node's dispatch loop when this transaction commits (several in one transaction:
    /// one notification). On SQLite the nodes share one file and no bell: they look themselves.
    static func announceQueueChange(in sql: any SQLConnection) throws {
        if sql.dialect == .postgres { try sql.execute("NOTIFY \(queueChannel)") }
    }

    /// Whether `waitForEvents` is woken by every node's new events (PostgreSQL, while
    /// `listenForEvents` runs); on SQLite only this process's wake it, so readers also look on a
    /// timer for another process's (nodes sharing one file).
    public var announcesEvents: Bool { shared.database is PostgresStoreDatabase }

    /// Rings the event bell for every NOTIFY any node's transaction commits, until cancelled
    /// (a server runs it for its whole life); returns at once on SQLite.
    public func listenForEvents() async {
        guard let database = shared.database as? PostgresStoreDatabase else { return }
        await database.listen(Self.eventsChannel) { [eventBell = shared.eventBell] in eventBell.ring() }
    }

    /// Calls `changed` once listening starts and then whenever any node's transaction may have
    /// changed what the queue offers: a call queued (new, retried, given back), a call ended (a
    /// place freed), a campaign started. The call manager's dispatch loop sleeps until then instead
    /// of looking every second. Returns at once on SQLite.
    public func listenForQueueChanges(_ changed: @escaping @Sendable () -> Void) async {
        guard let database = shared.database as? PostgresStoreDatabase else { return }
        await database.listen(Self.queueChannel, changed)
    }

    /// Returns when events may have been added (this node committed some, or another node
    /// announced some), after `timeout`, or when the task is cancelled.
    public func waitForEvents(timeout: Duration) async {
        await shared.eventBell.wait(timeout: timeout)
    }
}
