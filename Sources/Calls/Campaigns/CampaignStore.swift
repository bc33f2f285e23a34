import Dialogue
import Foundation
import Realtime

/// Campaigns, their contacts and the rows their uploads skipped. A contact becomes a call in the
/// same transaction that claims it, so a crash between the two cannot dial anyone twice.
public struct CampaignStore: SealingStoreRoom {
    /// The calls the campaigns make: queued, cancelled and read in the campaign's own transactions.
    let calls: CallStore
    var shared: SharedDatabase { calls.shared }
    var cipher: StorageCipher? { calls.cipher }

    public enum Failure: Error, Equatable, CustomStringConvertible {
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

    public func create(_ campaign: Campaign) async throws {
        try await sqlWrite { try $0.insert(campaign, into: "campaigns") }
    }

    public func campaign(id: String) async throws -> Campaign? {
        try await sqlRead { try Self.campaign(id: id, in: $0) }
    }

    static func campaign(id: String, in sql: any SQLConnection) throws -> Campaign? {
        try sql.fetchOne(Campaign.self, "SELECT * FROM campaigns WHERE id = ?", [.text(id)])
    }

    /// Newest first.
    public func list(inStates states: [CampaignState]? = nil) async throws -> [Campaign] {
        if states?.isEmpty == true { return [] }
        return try await sqlRead { sql in
            let filter = states.map { "WHERE state IN (\(sql.placeholders($0.count)))" } ?? ""
            return try sql.fetchAll(Campaign.self, "SELECT * FROM campaigns \(filter) ORDER BY created_at DESC", (states ?? []).map(\.rawValue.sqlValue))
        }
    }

    /// Stores a batch of contacts of a draft campaign; a number already in it is reported back,
    /// not added again. Problems found on upload are kept with the campaign.
    public func addContacts(campaignID: String, _ contacts: [ContactListReader.Contact], problems: [ContactListReader.Problem],
                            columns: [String]) async throws -> [ContactListReader.Problem] {
        try await sqlWrite { [self] sql in
            guard var campaign = try Self.campaign(id: campaignID, in: sql) else { throw Failure.notFound(campaignID) }
            guard campaign.state == .draft else { throw Failure.notDraft(campaignID) }
            let newColumns = columns.filter { !campaign.columns.contains($0) }
            if !newColumns.isEmpty {
                campaign.columns += newColumns
                try sql.execute("UPDATE campaigns SET columns = ? WHERE id = ?", [try SQLRowEncoder.value(of: campaign.columns), .text(campaignID)])
            }
            var more = problems
            var added = 0
            for contact in contacts {
                let variables = String(decoding: try JSONSerialization.data(withJSONObject: contact.variables, options: [.sortedKeys]), as: UTF8.self)
                let inserted = try sql.execute(
                    "INSERT INTO campaign_contacts (campaign_id, line, number, canonical, variables) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    campaignID, contact.line, contact.number, calls.numbers.storedKey(contact.number), sealed(variables))
                if inserted == 0 {
                    more.append(.init(line: contact.line, column: "", value: contact.number, reason: "already in this campaign"))
                } else {
                    added += 1
                }
            }
            for p in more {
                try sql.execute("INSERT INTO campaign_problems (campaign_id, line, column_name, value, reason) VALUES (?, ?, ?, ?, ?)",
                                campaignID, p.line, p.column, p.value, p.reason)
            }
            try sql.execute("UPDATE campaigns SET contacts = contacts + ?, skipped = skipped + ? WHERE id = ?", added, more.count, campaignID)
            return more
        }
    }

    /// The rows an upload skipped, in file order.
    public func problems(campaignID: String, limit: Int = 1000) async throws -> [ContactListReader.Problem] {
        try await sqlRead { sql in
            try sql.rows("SELECT line, column_name, value, reason FROM campaign_problems WHERE campaign_id = ? ORDER BY line LIMIT ?", campaignID, limit)
                .map { .init(line: try $0.get("line"), column: try $0.get("column_name"), value: try $0.get("value"), reason: try $0.get("reason")) }
        }
    }

    /// Moves a campaign along its state machine; throws `invalidTransition` otherwise.
    @discardableResult
    public func transition(campaignID: String, to state: CampaignState, now: Date = Date()) async throws -> Campaign {
        try await sqlWrite { [self] sql in
            guard var campaign = try Self.campaign(id: campaignID, in: sql) else { throw Failure.notFound(campaignID) }
            guard campaign.state.canTransition(to: state) else { throw Failure.invalidTransition(id: campaignID, from: campaign.state, to: state) }
            campaign.state = state
            if state == .running, campaign.startedAt == nil { campaign.startedAt = now }
            if state.isEnded { campaign.endedAt = now }
            try sql.update(campaign, in: "campaigns", key: "id")
            if state == .cancelled {   // what waits in the queue is not dialed; live calls finish
                let queued = try sql.column(String.self, "SELECT outbound_id FROM calls WHERE campaign_id = ? AND state = 'queued'", [.text(campaignID)])
                for id in queued { _ = try calls.transition(id: id, to: .cancelled, reason: "campaign cancelled", now: now, in: sql) }
            }
            if state.isEnded { try enqueueWebhook(campaign, now: now, in: sql) }
            if state == .running { try CallStore.announceQueueChange(in: sql) }
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
        try await sqlWrite { [self] sql in
            guard try Self.campaign(id: campaignID, in: sql)?.state == .running else { return nil }
            while let row = try sql.rows("""
                SELECT id, line, number, canonical, variables FROM campaign_contacts k WHERE campaign_id = ? AND outbound_id IS NULL AND skip_reason IS NULL
                    AND NOT EXISTS (SELECT 1 FROM calls c WHERE c.callee_canonical = k.canonical AND c.direction = 'outbound'
                                    AND \(CallStore.isOpen("c.state")))
                ORDER BY id LIMIT 1
                """, campaignID).first {
                let contact = ContactListReader.Contact(line: try row.get("line"), number: try row.get("number"),
                                                        variables: try contactVariables(try row.get("variables")))
                let rowID = try row.get("id", as: Int64.self)
                var skip: String?
                if try DoNotCallEntry.isListed(canonical: try row.get("canonical"), in: sql) { skip = "on the do-not-call list" }
                if skip == nil {
                    switch makeCall(contact) {
                    case .success(let built):
                        let call = try calls.insert(built, in: sql).call
                        try sql.execute("UPDATE campaign_contacts SET outbound_id = ? WHERE id = ?", call.outboundId, rowID)
                        return call   // as built: its metadata in the clear
                    case .failure(let reason): skip = reason.reason
                    }
                }
                try sql.execute("UPDATE campaign_contacts SET skip_reason = ? WHERE id = ?", skip, rowID)
            }
            return nil
        }
    }

    /// A contact's variables, as `addContacts` stored them.
    func contactVariables(_ stored: String) throws -> [String: String] {
        (try? JSONSerialization.jsonObject(with: Data(try opened(stored).utf8))) as? [String: String] ?? [:]
    }

    public struct ClaimSkip: Error { public var reason: String; public init(_ reason: String) { self.reason = reason } }

    /// Where a campaign's contacts and calls stand.
    public struct Progress: Sendable, Equatable, Codable {
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

    public func progress(campaignID: String) async throws -> Progress {
        try await sqlRead { sql in
            var progress = Progress()
            progress.waiting = try sql.scalar(Int.self, "SELECT COUNT(*) FROM campaign_contacts WHERE campaign_id = ? AND outbound_id IS NULL AND skip_reason IS NULL",
                                              [.text(campaignID)]) ?? 0
            progress.skippedAtDial = try sql.scalar(Int.self, "SELECT COUNT(*) FROM campaign_contacts WHERE campaign_id = ? AND skip_reason IS NOT NULL",
                                                    [.text(campaignID)]) ?? 0
            for row in try sql.rows("SELECT state, COUNT(*) AS n FROM calls WHERE campaign_id = ? GROUP BY state", campaignID) {
                progress.calls[try row.get("state", as: String.self)] = try row.get("n", as: Int.self)
            }
            return progress
        }
    }

    /// Calls of the campaign that hold one of its concurrent slots now: live, or queued and due.
    public func callsHoldingSlots(campaignID: String, now: Date = Date()) async throws -> Int {
        try await sqlRead { sql in
            try sql.scalar(Int.self, """
                SELECT COUNT(*) FROM calls WHERE campaign_id = ? AND (\(CallStore.isLive())
                    OR (state = 'queued' AND (next_attempt_at IS NULL OR next_attempt_at <= ?)))
                """, [.text(campaignID), .date(now)]) ?? 0
        }
    }

    /// One contact of a campaign as the results export shows it: its row, its call, the answers.
    public struct ResultRow: Sendable {
        public var contact: ContactListReader.Contact
        /// Why the contact was never called (upload problems are not contacts; see `problems`).
        public var skipReason: String?
        public var call: CallRecord?
        public var answers: [TaskTracker.Answer]
        public var hasRecording: Bool
    }

    /// The campaign's contacts in upload order, `pageSize` at a time after contact id `after`
    /// (pass the last page's `nextAfter`): an export of 100,000 rows never holds more than a page.
    public func results(campaignID: String, after: Int64 = 0, pageSize: Int = 500) async throws -> (rows: [ResultRow], nextAfter: Int64?) {
        try await sqlRead { [self] sql in
            let contacts = try sql.rows("""
                SELECT id, line, number, variables, outbound_id, skip_reason FROM campaign_contacts
                WHERE campaign_id = ? AND id > ? ORDER BY id LIMIT ?
                """, campaignID, after, pageSize)
            let ids = try contacts.compactMap { try $0.get("outbound_id", as: String?.self) }
            var found: [String: CallRecord] = [:]
            var answers: [String: [TaskTracker.Answer]] = [:]
            var recorded: Set<String> = []
            if !ids.isEmpty {
                let list = "(\(sql.placeholders(ids.count)))"
                for call in try sql.fetchAll(CallRecord.self, "SELECT * FROM calls WHERE outbound_id IN \(list)", ids.map(\.sqlValue)) {
                    found[call.outboundId] = try calls.opened(call)
                }
                for row in try sql.rows("SELECT * FROM answers WHERE outbound_id IN \(list) ORDER BY question_id", ids.map(\.sqlValue)) {
                    answers[try row.get("outbound_id", as: String.self), default: []].append(try calls.answer(row))
                }
                recorded = Set(try sql.column(String.self, "SELECT outbound_id FROM recordings WHERE outbound_id IN \(list)", ids.map(\.sqlValue)))
            }
            let rows = try contacts.map { row -> ResultRow in
                let id = try row.get("outbound_id", as: String?.self)
                return ResultRow(contact: .init(line: try row.get("line"), number: try row.get("number"), variables: try contactVariables(try row.get("variables"))),
                                 skipReason: try row.get("skip_reason"),
                                 call: id.flatMap { found[$0] }, answers: id.flatMap { answers[$0] } ?? [], hasRecording: id.map(recorded.contains) ?? false)
            }
            return (rows, contacts.count < pageSize ? nil : try contacts.last?.get("id", as: Int64.self))
        }
    }

    /// One contact as the campaign page lists it.
    public struct Contact: Codable, Sendable, Equatable {
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
    public func contacts(campaignID: String, state: String? = nil, limit: Int = 50, offset: Int = 0) async throws -> (contacts: [Contact], total: Int) {
        try await sqlRead { [self] sql in
            let stateSQL = "CASE WHEN k.skip_reason IS NOT NULL THEN 'skipped' WHEN c.state IS NULL THEN 'waiting' ELSE c.state END"
            let from = "FROM campaign_contacts k LEFT JOIN calls c ON c.outbound_id = k.outbound_id WHERE k.campaign_id = ?"
            let filter = state == nil ? "" : " AND \(stateSQL) = ?"
            var arguments: [SQLValue] = [.text(campaignID)]
            if let state { arguments.append(.text(state)) }
            let total = try sql.scalar(Int.self, "SELECT COUNT(*) \(from)\(filter)", arguments) ?? 0
            let rows = try sql.rows("""
                SELECT k.line, k.number, k.variables, k.outbound_id, k.skip_reason, \(stateSQL) AS state, COALESCE(c.attempt_count, 0) AS attempts
                \(from)\(filter) ORDER BY k.id LIMIT ? OFFSET ?
                """, arguments + [.integer(Int64(limit)), .integer(Int64(offset))])
            return (try rows.map { row in
                Contact(line: try row.get("line"), number: try row.get("number"), variables: try contactVariables(try row.get("variables")),
                        state: try row.get("state"), attempts: try row.get("attempts"), outboundId: try row.get("outbound_id"),
                        skipReason: try row.get("skip_reason"))
            }, total)
        }
    }

    /// A campaign's end, announced in the transaction that ends it.
    private func enqueueWebhook(_ campaign: Campaign, now: Date, in sql: any SQLConnection) throws {
        let type: WebhookEventType = campaign.state == .completed ? .campaignCompleted : .campaignCancelled
        var states: [String: Int] = [:]
        for row in try sql.rows("SELECT state, COUNT(*) AS n FROM calls WHERE campaign_id = ? GROUP BY state", campaign.id) {
            states[try row.get("state", as: String.self)] = try row.get("n", as: Int.self)
        }
        var data: [String: Any] = ["campaign_id": campaign.id, "name": campaign.name, "state": campaign.state.rawValue,
                                   "contacts": campaign.contacts, "skipped": campaign.skipped, "calls": states]
        if let started = campaign.startedAt { data["started_at"] = CallStore.iso8601(started) }
        if let ended = campaign.endedAt { data["ended_at"] = CallStore.iso8601(ended) }
        try calls.webhooks.enqueue(type, data: data, campaignID: campaign.id, now: now, in: sql)
    }
}
