import Foundation
import GRDB
import Realtime

extension Campaign: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "campaigns"
}

/// Campaigns, their contacts and the rows their uploads skipped. A contact becomes a call in the
/// same transaction that claims it, so a crash between the two cannot dial anyone twice.
extension CallStore {
    public enum CampaignFailure: Error, Equatable, CustomStringConvertible {
        case notFound(String)
        case invalidTransition(id: String, from: CampaignState, to: CampaignState)
        case notDraft(String)

        public var description: String {
            switch self {
            case .notFound(let id): "no campaign \(id)"
            case .invalidTransition(let id, let from, let to): "campaign \(id) cannot go from \(from.rawValue) to \(to.rawValue)"
            case .notDraft(let id): "campaign \(id) has started: contacts can only be added to a draft"
            }
        }
    }

    public func createCampaign(_ campaign: Campaign) async throws {
        try await write { try campaign.insert($0) }
    }

    public func campaign(id: String) async throws -> Campaign? {
        try await read { try Campaign.fetchOne($0, key: id) }
    }

    /// Newest first.
    public func campaigns(inStates states: [CampaignState]? = nil) async throws -> [Campaign] {
        try await read { db in
            var query = Campaign.all()
            if let states { query = query.filter(states.map(\.rawValue).contains(Column("state"))) }
            return try query.order(Column("created_at").desc).fetchAll(db)
        }
    }

    /// Stores a batch of contacts of a draft campaign; a number already in it is reported back,
    /// not added again. Problems found on upload are kept with the campaign.
    public func addContacts(campaignID: String, _ contacts: [ContactListReader.Contact], problems: [ContactListReader.Problem],
                            columns: [String]) async throws -> [ContactListReader.Problem] {
        try await write { [self] db in
            guard var campaign = try Campaign.fetchOne(db, key: campaignID) else { throw CampaignFailure.notFound(campaignID) }
            guard campaign.state == .draft else { throw CampaignFailure.notDraft(campaignID) }
            let newColumns = columns.filter { !campaign.columns.contains($0) }
            if !newColumns.isEmpty {
                campaign.columns += newColumns
                try campaign.update(db, columns: ["columns"])
            }
            var more = problems
            var added = 0
            for contact in contacts {
                let variables = String(decoding: try JSONSerialization.data(withJSONObject: contact.variables, options: [.sortedKeys]), as: UTF8.self)
                try db.execute(sql: "INSERT OR IGNORE INTO campaign_contacts (campaign_id, line, number, variables) VALUES (?, ?, ?, ?)",
                               arguments: [campaignID, contact.line, contact.number, sealed(variables)])
                if db.changesCount == 0 {
                    more.append(.init(line: contact.line, column: "", value: contact.number, reason: "already in this campaign"))
                } else {
                    added += 1
                }
            }
            for p in more {
                try db.execute(sql: "INSERT INTO campaign_problems (campaign_id, line, column_name, value, reason) VALUES (?, ?, ?, ?, ?)",
                               arguments: [campaignID, p.line, p.column, p.value, p.reason])
            }
            try db.execute(sql: "UPDATE campaigns SET contacts = contacts + ?, skipped = skipped + ? WHERE id = ?", arguments: [added, more.count, campaignID])
            return more
        }
    }

    /// The rows an upload skipped, in file order.
    public func campaignProblems(campaignID: String, limit: Int = 1000) async throws -> [ContactListReader.Problem] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT line, column_name, value, reason FROM campaign_problems WHERE campaign_id = ? ORDER BY line LIMIT ?",
                             arguments: [campaignID, limit])
                .map { .init(line: $0["line"], column: $0["column_name"], value: $0["value"], reason: $0["reason"]) }
        }
    }

    /// Moves a campaign along its state machine; throws `invalidTransition` otherwise.
    @discardableResult
    public func transition(campaignID: String, to state: CampaignState, now: Date = Date()) async throws -> Campaign {
        try await write { [self] db in
            guard var campaign = try Campaign.fetchOne(db, key: campaignID) else { throw CampaignFailure.notFound(campaignID) }
            guard campaign.state.canTransition(to: state) else { throw CampaignFailure.invalidTransition(id: campaignID, from: campaign.state, to: state) }
            campaign.state = state
            if state == .running, campaign.startedAt == nil { campaign.startedAt = now }
            if state.isEnded { campaign.endedAt = now }
            try campaign.update(db)
            if state == .cancelled {   // what waits in the queue is not dialed; live calls finish
                let queued = try String.fetchAll(db, sql: "SELECT outbound_id FROM calls WHERE campaign_id = ? AND state = 'queued'", arguments: [campaignID])
                for id in queued { _ = try transition(id: id, to: .cancelled, reason: "campaign cancelled", now: now, in: db) }
            }
            if state.isEnded { try enqueueCampaignWebhook(campaign, now: now, in: db) }
            return campaign
        }
    }

    /// Claims the campaign's next contact and queues its call, atomically. A contact whose number
    /// already has an open call (another campaign's, or a single call) waits its turn instead: one
    /// open call per number, as for single calls (seed 000 §11). `makeCall` builds the
    /// record (nil: the contact cannot be called, e.g. listed as do-not-call since the upload —
    /// then it is marked with `skipReason` and the next one is tried). Returns the queued call; nil
    /// when no contact waits or the campaign is no longer running (a pause is never overtaken).
    public func claimNextContact(campaignID: String, makeCall: @escaping @Sendable (ContactListReader.Contact) -> Result<CallRecord, ClaimSkip>) async throws -> CallRecord? {
        try await write { [self] db in
            guard try Campaign.fetchOne(db, key: campaignID)?.state == .running else { return nil }
            while let row = try Row.fetchOne(db, sql: """
                SELECT id, line, number, variables FROM campaign_contacts k WHERE campaign_id = ? AND outbound_id IS NULL AND skip_reason IS NULL
                    AND NOT EXISTS (SELECT 1 FROM calls c WHERE c.callee_number = k.number AND c.direction = 'outbound'
                                    AND c.state IN ('queued', 'dialing', 'ringing', 'connected'))
                ORDER BY id LIMIT 1
                """, arguments: [campaignID]) {
                let contact = ContactListReader.Contact(line: row["line"], number: row["number"], variables: try contactVariables(row["variables"]))
                let rowID: Int64 = row["id"]
                var skip: String?
                if try DoNotCallEntry.isListed(contact.number, in: db.sql) { skip = "on the do-not-call list" }
                if skip == nil {
                    switch makeCall(contact) {
                    case .success(let call):
                        try insert(call, in: db)
                        try db.execute(sql: "UPDATE campaign_contacts SET outbound_id = ? WHERE id = ?", arguments: [call.outboundId, rowID])
                        return call   // as built: its metadata in the clear
                    case .failure(let reason): skip = reason.reason
                    }
                }
                try db.execute(sql: "UPDATE campaign_contacts SET skip_reason = ? WHERE id = ?", arguments: [skip, rowID])
            }
            return nil
        }
    }

    public struct ClaimSkip: Error { public var reason: String; public init(_ reason: String) { self.reason = reason } }

    /// Where a campaign's contacts and calls stand.
    public struct CampaignProgress: Sendable, Equatable, Codable {
        /// Contacts not yet turned into a call.
        public var waiting = 0
        /// Contacts skipped when their turn came (listed as do-not-call since the upload, …).
        public var skippedAtDial = 0
        /// Calls by state (a call waiting for its retry counts as queued).
        public var calls: [String: Int] = [:]
        /// Calls dialing, ringing or connected now.
        public var live: Int { CallState.allCases.filter(\.isLive).reduce(0) { $0 + (calls[$1.rawValue] ?? 0) } }
        /// Calls not ended: live or queued.
        public var open: Int { live + (calls["queued"] ?? 0) }

        public init() {}

        enum CodingKeys: String, CodingKey {
            case waiting, calls
            case skippedAtDial = "skipped_at_dial"
        }
    }

    public func progress(campaignID: String) async throws -> CampaignProgress {
        try await read { db in
            var progress = CampaignProgress()
            progress.waiting = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM campaign_contacts WHERE campaign_id = ? AND outbound_id IS NULL AND skip_reason IS NULL",
                                                arguments: [campaignID]) ?? 0
            progress.skippedAtDial = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM campaign_contacts WHERE campaign_id = ? AND skip_reason IS NOT NULL",
                                                      arguments: [campaignID]) ?? 0
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM calls WHERE campaign_id = ? GROUP BY state", arguments: [campaignID]) {
                progress.calls[row["state"]] = row["n"]
            }
            return progress
        }
    }

    /// Calls of the campaign that hold one of its concurrent slots now: live, or queued and due.
    public func campaignCallsHoldingSlots(campaignID: String, now: Date = Date()) async throws -> Int {
        try await read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM calls WHERE campaign_id = ? AND (state IN ('dialing', 'ringing', 'connected')
                    OR (state = 'queued' AND (next_attempt_at IS NULL OR next_attempt_at <= ?)))
                """, arguments: [campaignID, now]) ?? 0
        }
    }
}

extension CallStore {
    /// One contact of a campaign as the results export shows it: its row, its call, the answers.
    public struct CampaignResultRow: Sendable {
        public var contact: ContactListReader.Contact
        /// Why the contact was never called (upload problems are not contacts; see `campaignProblems`).
        public var skipReason: String?
        public var call: CallRecord?
        public var answers: [TaskTracker.Answer]
        public var hasRecording: Bool
    }

    /// The campaign's contacts in upload order, `pageSize` at a time after contact id `after`
    /// (pass the last page's `nextAfter`): an export of 100,000 rows never holds more than a page.
    public func campaignResults(campaignID: String, after: Int64 = 0, pageSize: Int = 500) async throws -> (rows: [CampaignResultRow], nextAfter: Int64?) {
        try await read { [self] db in
            let contacts = try Row.fetchAll(db, sql: """
                SELECT id, line, number, variables, outbound_id, skip_reason FROM campaign_contacts
                WHERE campaign_id = ? AND id > ? ORDER BY id LIMIT ?
                """, arguments: [campaignID, after, pageSize])
            let ids = contacts.compactMap { $0["outbound_id"] as String? }
            let calls = Dictionary(uniqueKeysWithValues: try CallRecord.filter(keys: ids).fetchAll(db).map { ($0.outboundId, try opened($0)) })
            var answers: [String: [TaskTracker.Answer]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM answers WHERE outbound_id IN (SELECT value FROM json_each(?)) ORDER BY question_id",
                                        arguments: [String(decoding: try JSONSerialization.data(withJSONObject: ids), as: UTF8.self)]) {
                answers[row["outbound_id"], default: []].append(try answer(SQLiteConnection.row(row)))
            }
            let recorded = Set(try String.fetchAll(db, sql: "SELECT outbound_id FROM recordings WHERE outbound_id IN (SELECT value FROM json_each(?))",
                                                   arguments: [String(decoding: try JSONSerialization.data(withJSONObject: ids), as: UTF8.self)]))
            let rows = try contacts.map { row -> CampaignResultRow in
                let id: String? = row["outbound_id"]
                return CampaignResultRow(contact: .init(line: row["line"], number: row["number"], variables: try contactVariables(row["variables"])),
                                         skipReason: row["skip_reason"],
                                         call: id.flatMap { calls[$0] }, answers: id.flatMap { answers[$0] } ?? [], hasRecording: id.map(recorded.contains) ?? false)
            }
            return (rows, contacts.count < pageSize ? nil : contacts.last?["id"])
        }
    }
}

extension CallStore {
    /// One contact as the campaign page lists it.
    public struct CampaignContact: Codable, Sendable, Equatable {
        public var line: Int
        public var number: String
        public var variables: [String: String]
        /// `waiting`, `skipped`, or its call's state.
        public var state: String
        public var attempts: Int
        public var outboundId: String?
        public var skipReason: String?

        enum CodingKeys: String, CodingKey {
            case line, number, variables, state, attempts
            case outboundId = "outbound_id", skipReason = "skip_reason"
        }
    }

    /// The campaign's contacts in upload order, optionally only those in `state` (`waiting`,
    /// `skipped` or a call state), a page at a time.
    public func campaignContacts(campaignID: String, state: String? = nil, limit: Int = 50, offset: Int = 0) async throws -> (contacts: [CampaignContact], total: Int) {
        try await read { [self] db in
            let stateSQL = "CASE WHEN k.skip_reason IS NOT NULL THEN 'skipped' WHEN c.state IS NULL THEN 'waiting' ELSE c.state END"
            let from = "FROM campaign_contacts k LEFT JOIN calls c ON c.outbound_id = k.outbound_id WHERE k.campaign_id = ?"
            let filter = state == nil ? "" : " AND \(stateSQL) = ?"
            var arguments: StatementArguments = [campaignID]
            if let state { arguments += [state] }
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) \(from)\(filter)", arguments: arguments) ?? 0
            arguments += [limit, offset]
            let rows = try Row.fetchAll(db, sql: """
                SELECT k.line, k.number, k.variables, k.outbound_id, k.skip_reason, \(stateSQL) AS state, COALESCE(c.attempt_count, 0) AS attempts
                \(from)\(filter) ORDER BY k.id LIMIT ? OFFSET ?
                """, arguments: arguments)
            return (try rows.map { row in
                CampaignContact(line: row["line"], number: row["number"], variables: try contactVariables(row["variables"]),
                                state: row["state"], attempts: row["attempts"], outboundId: row["outbound_id"], skipReason: row["skip_reason"])
            }, total)
        }
    }
}
