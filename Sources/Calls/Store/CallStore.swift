import Foundation
import GRDB

/// The SQLite database behind every call: one file, WAL journal, versioned migrations.
///
/// Every state change is written here, with its event, in one transaction *before* anyone is told
/// about it, so whatever the dashboard has shown survives a crash.
public final class CallStore: Sendable {
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

    public let path: String
    let pool: DatabasePool
    /// Seals transcripts, answers, summaries, metadata, contact variables and webhook payloads
    /// (and the recordings the call manager writes); nil: stored as plain text.
    public let cipher: StorageCipher?

    /// Opens (creating if needed) the database at `path` and brings its schema up to date. With a
    /// `cipher`, refuses a database holding data sealed with keys the cipher does not have.
    public init(path: String, cipher: StorageCipher? = nil) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in try Self.prepareEncryption(db, cipher: cipher) }
        self.path = path
        self.cipher = cipher
        self.pool = try DatabasePool(path: path, configuration: configuration)
        try pool.write { try Self.migrator.migrate(in: $0.sql) }
        try checkStorageKeys()
    }

    /// Names of the migrations applied to this file, oldest first.
    public func appliedMigrations() async throws -> [String] {
        try await sqlRead { try Self.migrator.applied(in: $0) }
    }

    public func journalMode() async throws -> String {
        try await read { try String.fetchOne($0, sql: "PRAGMA journal_mode") ?? "" }
    }

    /// Answers whether the database is reachable and consistent enough to serve (for /healthz).
    public func isHealthy() async -> Bool {
        (try? await read { try Int.fetchOne($0, sql: "SELECT 1") }) == 1
    }

    /// Closes the calls a crash of `node` left in dialing, ringing or connected (and live calls no
    /// node claimed, from before nodes were recorded): they are `failed` with reason
    /// `interrupted_by_restart`. Queued calls stay queued; the node's claims on them are released.
    /// Other nodes' calls are theirs (or, once their lease runs out, `takeOverLostNodes`'s). Returns the ids it closed.
    @discardableResult
    public func reconcileAfterRestart(node: String, now: Date = Date()) async throws -> [String] {
        try await write { [self] db in
            let stranded = try CallRecord.filter(Self.liveStates.contains(Column("state")) && (Column("node_id") == nil || Column("node_id") == node)).fetchAll(db)
            try Self.releaseClaims(of: node, in: db.sql)
            for var call in stranded {
                let from = call.state
                call.state = .failed
                call.failureReason = "interrupted_by_restart"
                call.completedAt = now
                call.lastOutcome = CallState.failed.rawValue
                try call.update(db)
                try Self.closeAttempt(callID: call.outboundId, outcome: .failed, reason: "interrupted_by_restart", at: now, in: db.sql)
                try Self.append(CallEvent(outboundId: call.outboundId, type: "outbound_failed",
                                          payload: Self.json(["state": "failed", "previous_state": from.rawValue, "reason": "interrupted_by_restart"]),
                                          createdAt: now), in: db.sql)
                try enqueueCallWebhook(call, now: now, in: db)
            }
            return stranded.map(\.outboundId)
        }
    }

    /// Stores a new call with its `outbound_queued` (or `inbound_…`) event; returns the event. An
    /// outbound call to a number on the do-not-call list is refused. With `onlyIfCalleeFree`, refuses
    /// (atomically, so two racing requests cannot both pass) when an outbound call to the same number is still open.
    @discardableResult
    public func insert(_ call: CallRecord, onlyIfCalleeFree: Bool = false) async throws -> CallEvent {
        try await write { [self] in try insert(call, onlyIfCalleeFree: onlyIfCalleeFree, in: $0) }
    }

    /// `insert(_:onlyIfCalleeFree:)` inside a transaction the caller holds.
    @discardableResult
    func insert(_ call: CallRecord, onlyIfCalleeFree: Bool = false, in db: Database) throws -> CallEvent {
        if call.direction == .outbound, try DoNotCallEntry.isListed(call.calleeNumber, in: db.sql) {
            throw Failure.doNotCall(number: call.calleeNumber)
        }
        if onlyIfCalleeFree {
            let open = [CallState.queued, .dialing, .ringing, .connected].map(\.rawValue)
            if let existing = try CallRecord.filter(Column("callee_number") == call.calleeNumber && open.contains(Column("state")) && Column("direction") == "outbound").fetchOne(db) {
                throw Failure.calleeBusy(number: call.calleeNumber, existing: existing.outboundId)
            }
        }
        try sealed(call).insert(db)
        if call.attemptCount > 0 { try Self.openAttempt(call, at: call.startedAt ?? call.createdAt, in: db.sql) }   // inbound: answered already
        return try Self.append(CallEvent(outboundId: call.outboundId, type: "\(call.direction.rawValue)_\(call.state.rawValue)",
                                         payload: Self.json(["state": call.state.rawValue]), createdAt: call.createdAt), in: db.sql)
    }

    public func call(id: String) async throws -> CallRecord? {
        try await read { try CallRecord.fetchOne($0, key: id) }.map(opened)
    }

    /// The call a provider knows by `externalID` (SIP Call-ID or Twilio CallSid), newest first.
    public func call(externalID: String) async throws -> CallRecord? {
        try await read { try CallRecord.filter(Column("call_id") == externalID).order(Column("created_at").desc).fetchOne($0) }.map(opened)
    }

    public func calls(inStates states: [CallState]) async throws -> [CallRecord] {
        try await read { db in
            try CallRecord.filter(states.map(\.rawValue).contains(Column("state")))
                .order(Column("priority").desc, Column("created_at"))
                .fetchAll(db)
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
        let (call, event) = try await write { [self] in try transition(id: id, to: state, from: expected, reason: reason, heldBy: node, now: now, in: $0) }
        return (try opened(call), event)
    }

    /// Ends an attempt in `state`; with `retryAt`, queues the next attempt in the same transaction,
    /// and the call's webhook waits for its final outcome instead of announcing this one.
    /// With `heldBy`, only while that node holds the call (see `transition`).
    public func endAttempt(id: String, in state: CallState, reason: String, retryAt: Date?, heldBy node: String? = nil, now: Date = Date()) async throws {
        try await write { [self] db in try endAttempt(id: id, in: state, reason: reason, retryAt: retryAt, heldBy: node, now: now, in: db) }
    }

    /// `endAttempt(id:in:reason:retryAt:now:)` inside a transaction the caller holds.
    func endAttempt(id: String, in state: CallState, reason: String, retryAt: Date?, heldBy node: String? = nil, now: Date, in db: Database) throws {
        try transition(id: id, to: state, reason: reason, announce: retryAt == nil, heldBy: node, now: now, in: db)
        guard let retryAt else { return }
        try db.execute(sql: "UPDATE calls SET next_attempt_at = ? WHERE outbound_id = ?", arguments: [retryAt, id])
        try transition(id: id, to: .queued, reason: "retry after \(reason)", now: now, in: db)   // last_outcome keeps this attempt's end
    }

    /// `transition(id:to:reason:now:)` inside a transaction the caller holds; `announce: false`
    /// keeps a final state's webhook back (a retry follows in the same transaction).
    @discardableResult
    func transition(id: String, to state: CallState, from expected: CallState? = nil, reason: String? = nil, announce: Bool = true,
                    heldBy node: String? = nil, now: Date, in db: Database) throws -> (CallRecord, CallEvent) {
        guard var call = try CallRecord.fetchOne(db, key: id) else { throw Failure.notFound(id) }
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
            try Self.closeAttempt(callID: id, outcome: state, reason: reason, at: now, in: db.sql)
        default: break
        }
        try call.update(db)
        if state == .dialing { try Self.openAttempt(call, at: now, in: db.sql) }
        var payload = ["state": state.rawValue, "attempt_count": String(call.attemptCount)]
        if let reason { payload["reason"] = reason }
        let event = try Self.append(CallEvent(outboundId: id, type: "\(call.direction == .outbound ? "outbound" : "inbound")_\(state.rawValue)",
                                              payload: Self.json(payload), createdAt: now), in: db.sql)
        if state.isTerminal, announce { try enqueueCallWebhook(call, now: now, in: db) }
        return (call, event)
    }

    /// Events after `id` (exclusive), oldest first: what a reconnecting client missed.
    public func events(after id: Int64 = 0, limit: Int = 1000) async throws -> [CallEvent] {
        try await read { db in
            try CallEvent.filter(Column("id") > id).order(Column("id")).limit(limit).fetchAll(db)
        }.map(opened)
    }

    static func json(_ object: [String: String]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

extension CallStore {
    /// Checkpoints the WAL into the main file and closes the database; later calls throw.
    public func close() async throws {
        try checkpointAndClose()
    }

    /// Synchronous on purpose: GRDB's async access gives up in a cancelled task, and closing is
    /// the last thing a shutting-down server does.
    private func checkpointAndClose() throws {
        _ = try pool.writeWithoutTransaction { db in
            try db.checkpoint(.truncate)
        }
        try pool.close()
    }
}
