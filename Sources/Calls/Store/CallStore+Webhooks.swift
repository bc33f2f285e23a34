import Foundation
import GRDB

/// Webhook endpoints and the outbox. A delivery is written in the transaction of the state change
/// it reports (`transition`, a campaign's end), so an event the database holds is an event that
/// will be delivered — a crash between the two is impossible by construction.
extension CallStore {
    public enum WebhookFailure: Error, Equatable, CustomStringConvertible {
        case notFound(String)
        case fromConfig(String)
        case deliveryNotFound(String)

        public var description: String {
            switch self {
            case .notFound(let id): "no webhook endpoint \(id)"
            case .fromConfig(let id): "webhook endpoint \(id) is defined in the configuration file; change it there"
            case .deliveryNotFound(let id): "no delivery \(id)"
            }
        }
    }

    // MARK: Endpoints

    public func createWebhook(_ endpoint: WebhookEndpoint) async throws {
        try await write { try endpoint.insert($0) }
    }

    public func webhooks() async throws -> [WebhookEndpoint] {
        try await read { try WebhookEndpoint.order(Column("created_at"), Column("id")).fetchAll($0) }
    }

    public func webhook(id: String) async throws -> WebhookEndpoint? {
        try await read { try WebhookEndpoint.fetchOne($0, key: id) }
    }

    /// Changes an API-made endpoint with `change`; one from the configuration file is refused.
    public func updateWebhook(id: String, _ change: @escaping @Sendable (inout WebhookEndpoint) -> Void) async throws -> WebhookEndpoint {
        try await write { db in
            guard var endpoint = try WebhookEndpoint.fetchOne(db, key: id) else { throw WebhookFailure.notFound(id) }
            guard !endpoint.fromConfig else { throw WebhookFailure.fromConfig(id) }
            change(&endpoint)
            if endpoint.enabled { endpoint.disabledReason = nil }
            try endpoint.update(db)
            return endpoint
        }
    }

    /// Deletes an API-made endpoint with its delivery history.
    public func deleteWebhook(id: String) async throws -> Bool {
        try await write { db in
            guard let endpoint = try WebhookEndpoint.fetchOne(db, key: id) else { return false }
            guard !endpoint.fromConfig else { throw WebhookFailure.fromConfig(id) }
            return try endpoint.delete(db)
        }
    }

    /// Makes the stored configuration endpoints match the file: added or updated by name; one
    /// removed from the file is turned off (its deliveries stay visible), not deleted.
    public func syncConfiguredWebhooks(_ configured: [WebhookEndpoint]) async throws {
        try await write { db in
            for var endpoint in configured {
                endpoint.fromConfig = true
                if let stored = try WebhookEndpoint.fetchOne(db, key: endpoint.id) { endpoint.createdAt = stored.createdAt }
                try endpoint.save(db)
            }
            let names = Set(configured.map(\.id))
            for var removed in try WebhookEndpoint.filter(Column("from_config") == true).fetchAll(db) where !names.contains(removed.id) && removed.enabled {
                removed.enabled = false
                removed.disabledReason = "removed from the configuration file"
                try removed.update(db)
            }
        }
    }

    // MARK: Outbox

    /// Writes one delivery of `type` with `data` for every endpoint that wants it, inside the caller's transaction.
    func enqueueWebhook(_ type: WebhookEventType, data: [String: Any], outboundID: String? = nil, campaignID: String? = nil,
                        now: Date, in db: Database) throws {
        let endpoints = try WebhookEndpoint.filter(Column("enabled") == true).fetchAll(db).filter { $0.wants(type) }
        guard !endpoints.isEmpty else { return }
        let body: [String: Any] = ["type": type.rawValue, "timestamp": Self.iso8601(now), "data": data]
        let payload = String(decoding: try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
        for endpoint in endpoints {
            try WebhookDelivery(id: WebhookDelivery.newID(), endpointId: endpoint.id, eventType: type.rawValue, outboundId: outboundID,
                                campaignId: campaignID, payload: sealed(payload), state: .pending, attemptCount: 0, nextAttemptAt: now,
                                createdAt: now).insert(db)
        }
    }

    /// A call's final outcome, as its webhook announces it: the result without the transcript
    /// (`/api/outbound/{id}` has everything), kept well under Standard Webhooks' 20 kB advice.
    func enqueueCallWebhook(_ call: CallRecord, now: Date, in db: Database) throws {
        var data: [String: Any] = [
            "outbound_id": call.outboundId, "direction": call.direction.rawValue, "state": call.state.rawValue,
            "caller_number": call.callerNumber, "callee_number": call.calleeNumber, "purpose": call.purpose,
            "attempt_count": call.attemptCount, "created_at": Self.iso8601(call.createdAt),
        ]
        let optional: [String: Any?] = [
            "reason": call.failureReason, "campaign_id": call.campaignId, "template_id": call.templateId,
            "answered_by": call.answeredBy, "summary": try opened(call.summary) as Any?, "task_completed": call.taskCompleted,
            "duration_seconds": call.durationSeconds, "completed_at": call.completedAt.map(Self.iso8601),
            "answered_at": call.answeredAt.map(Self.iso8601),
        ]
        for case let (key, value?) in optional { data[key] = value }
        let answers = try Row.fetchAll(db, sql: "SELECT * FROM answers WHERE outbound_id = ? ORDER BY question_id", arguments: [call.outboundId])
            .map { try answer(SQLiteConnection.row($0)) }
        data["answers"] = answers.map { answer -> [String: Any] in
            var item: [String: Any] = ["question_id": answer.questionID, "question": answer.question, "status": answer.status.rawValue]
            if let text = answer.answerSummary ?? answer.answerText { item["answer"] = text }
            return item
        }
        try enqueueWebhook(WebhookEventType(finalState: call.state), data: data, outboundID: call.outboundId,
                           campaignID: call.campaignId, now: now, in: db)
    }

    func enqueueCampaignWebhook(_ campaign: Campaign, now: Date, in db: Database) throws {
        let type: WebhookEventType = campaign.state == .completed ? .campaignCompleted : .campaignCancelled
        let counts = try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM calls WHERE campaign_id = ? GROUP BY state", arguments: [campaign.id])
        var calls: [String: Int] = [:]
        for row in counts { calls[row["state"]] = row["n"] }
        var data: [String: Any] = ["campaign_id": campaign.id, "name": campaign.name, "state": campaign.state.rawValue,
                                   "contacts": campaign.contacts, "skipped": campaign.skipped, "calls": calls]
        if let started = campaign.startedAt { data["started_at"] = Self.iso8601(started) }
        if let ended = campaign.endedAt { data["ended_at"] = Self.iso8601(ended) }
        try enqueueWebhook(type, data: data, campaignID: campaign.id, now: now, in: db)
    }

    /// Claims up to `limit` deliveries that are due, with their endpoints: each one's next attempt
    /// moves `lease` ahead, so a delivery in flight is not claimed twice, and one a crash
    /// interrupted is tried again once the lease runs out. A turned-off endpoint's deliveries wait
    /// (they go out if it is turned on again).
    public func claimDueWebhookDeliveries(now: Date = Date(), limit: Int, lease: TimeInterval) async throws -> [(WebhookDelivery, WebhookEndpoint)] {
        try await write { [self] db in
            let due = try WebhookDelivery.fetchAll(db, sql: """
                SELECT * FROM webhook_deliveries
                WHERE state = 'pending' AND next_attempt_at <= ? AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE enabled = 1)
                ORDER BY next_attempt_at LIMIT ?
                """, arguments: [now, limit])
            return try due.compactMap { delivery in
                guard let endpoint = try WebhookEndpoint.fetchOne(db, key: delivery.endpointId) else { return nil }
                try db.execute(sql: "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ?",
                               arguments: [now.addingTimeInterval(lease), delivery.id])
                return (try opened(delivery), endpoint)
            }
        }
    }

    /// Stores an attempt and what follows from it, in one transaction.
    public func recordWebhookAttempt(_ attempt: WebhookAttempt, verdict: WebhookRetryPolicy.Verdict) async throws {
        try await write { db in
            var attempt = attempt
            try attempt.insert(db)
            guard var delivery = try WebhookDelivery.fetchOne(db, key: attempt.deliveryId) else { return }
            delivery.attemptCount += 1
            delivery.lastStatus = attempt.status
            delivery.lastError = attempt.error
            switch verdict {
            case .delivered:
                delivery.state = .delivered; delivery.deliveredAt = attempt.attemptedAt; delivery.nextAttemptAt = nil
            case .retry(let after):
                delivery.state = .pending; delivery.nextAttemptAt = attempt.attemptedAt.addingTimeInterval(after)
            case .giveUp(let reason):
                delivery.state = .failed; delivery.nextAttemptAt = nil
                delivery.lastError = [attempt.error, reason].compactMap { $0 }.joined(separator: "; ")
            case .disableEndpoint:
                delivery.state = .failed; delivery.nextAttemptAt = nil
                delivery.lastError = "the receiver answered 410 Gone: endpoint turned off"
                try db.execute(sql: "UPDATE webhook_endpoints SET enabled = 0, disabled_reason = '410 Gone from the receiver' WHERE id = ?",
                               arguments: [delivery.endpointId])
            }
            try delivery.update(db)
        }
    }

    /// Sends a delivery again at once (same webhook-id), whatever became of it.
    public func replayWebhookDelivery(id: String, now: Date = Date()) async throws -> WebhookDelivery {
        try await write { [self] db in
            guard var delivery = try WebhookDelivery.fetchOne(db, key: id) else { throw WebhookFailure.deliveryNotFound(id) }
            delivery.state = .pending
            delivery.nextAttemptAt = now
            try delivery.update(db)
            return try opened(delivery)
        }
    }

    public func webhookDelivery(id: String) async throws -> WebhookDelivery? {
        try await read { try WebhookDelivery.fetchOne($0, key: id) }.map(opened)
    }

    /// An endpoint's deliveries, newest first.
    public func webhookDeliveries(endpointID: String, state: WebhookDelivery.State? = nil, limit: Int = 50, offset: Int = 0) async throws -> [WebhookDelivery] {
        try await read { db in
            var query = WebhookDelivery.filter(Column("endpoint_id") == endpointID)
            if let state { query = query.filter(Column("state") == state.rawValue) }
            return try query.order(Column("created_at").desc, Column("id")).limit(limit, offset: offset).fetchAll(db)
        }.map(opened)
    }

    /// Deliveries that report a call, oldest first.
    public func webhookDeliveries(callID: String) async throws -> [WebhookDelivery] {
        try await read { try WebhookDelivery.filter(Column("outbound_id") == callID).order(Column("created_at"), Column("id")).fetchAll($0) }.map(opened)
    }

    public func webhookAttempts(deliveryIDs: [String]) async throws -> [String: [WebhookAttempt]] {
        try await read { db in
            Dictionary(grouping: try WebhookAttempt.filter(deliveryIDs.contains(Column("delivery_id"))).order(Column("id")).fetchAll(db), by: \.deliveryId)
        }
    }

    static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
