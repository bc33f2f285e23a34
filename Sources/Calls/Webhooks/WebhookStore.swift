import Foundation
import Tools

/// Webhook endpoints and the outbox. A delivery is written in the transaction of the state change
/// it reports (a call's end, `CallStore.enqueueCallWebhook`; a campaign's, `CampaignStore`), so an
/// event the database holds is an event that will be delivered — a crash between the two is
/// impossible by construction.
public struct WebhookStore: SealingStoreRoom {
    let shared: SharedDatabase
    let cipher: StorageCipher?

    public enum Failure: Error, Equatable, CustomStringConvertible {
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

    /// Stored with its secret sealed (with a storage key): the secret signs every delivery, so it
    /// is as worth protecting as the results it announces.
    public func create(_ endpoint: WebhookEndpoint) async throws {
        try await sqlWrite { [self] in try $0.insert(sealed(endpoint), into: "webhook_endpoints") }
    }

    public func endpoints() async throws -> [WebhookEndpoint] {
        try await sqlRead { [self] in try $0.fetchAll(WebhookEndpoint.self, "SELECT * FROM webhook_endpoints ORDER BY created_at, id").map(opened) }
    }

    public func endpoint(id: String) async throws -> WebhookEndpoint? {
        try await sqlRead { [self] in try Self.endpoint(id: id, in: $0).map(opened) }
    }

    func sealed(_ endpoint: WebhookEndpoint) -> WebhookEndpoint {
        var e = endpoint
        e.secret = sealed(e.secret)
        return e
    }

    func opened(_ endpoint: WebhookEndpoint) throws -> WebhookEndpoint {
        var e = endpoint
        e.secret = try opened(e.secret)
        return e
    }

    func opened(_ delivery: WebhookDelivery) throws -> WebhookDelivery {
        var delivery = delivery
        delivery.payload = try opened(delivery.payload)
        return delivery
    }

    static func endpoint(id: String, in sql: any SQLConnection) throws -> WebhookEndpoint? {
        try sql.fetchOne(WebhookEndpoint.self, "SELECT * FROM webhook_endpoints WHERE id = ?", [.text(id)])
    }

    /// Changes an API-made endpoint with `change`; one from the configuration file is refused.
    public func update(id: String, _ change: @escaping @Sendable (inout WebhookEndpoint) -> Void) async throws -> WebhookEndpoint {
        try await sqlWrite { [self] sql in
            guard let stored = try Self.endpoint(id: id, in: sql) else { throw Failure.notFound(id) }
            guard !stored.fromConfig else { throw Failure.fromConfig(id) }
            let before = try opened(stored)
            var endpoint = before
            change(&endpoint)
            if endpoint.enabled { endpoint.disabledReason = nil }
            var row = sealed(endpoint)
            if endpoint.secret == before.secret { row.secret = stored.secret }   // unchanged: not sealed again
            try sql.update(row, in: "webhook_endpoints", key: "id")
            if endpoint.enabled, !before.enabled { sql.notes.wroteOutbox = true }   // its waiting deliveries can go now
            return endpoint
        }
    }

    /// Deletes an API-made endpoint with its delivery history.
    public func delete(id: String) async throws -> Bool {
        try await sqlWrite { sql in
            guard let endpoint = try Self.endpoint(id: id, in: sql) else { return false }
            guard !endpoint.fromConfig else { throw Failure.fromConfig(id) }
            return try sql.execute("DELETE FROM webhook_endpoints WHERE id = ?", id) > 0
        }
    }

    /// Makes the stored configuration endpoints match the file: added or updated by name; one
    /// removed from the file is turned off (its deliveries stay visible), not deleted.
    public func syncConfigured(_ configured: [WebhookEndpoint]) async throws {
        try await sqlWrite { [self] sql in
            for var endpoint in configured {
                endpoint.fromConfig = true
                if let stored = try Self.endpoint(id: endpoint.id, in: sql) {
                    endpoint.createdAt = stored.createdAt
                    var row = sealed(endpoint)
                    if endpoint.secret == (try opened(stored)).secret { row.secret = stored.secret }
                    try sql.update(row, in: "webhook_endpoints", key: "id")
                    if endpoint.enabled, !stored.enabled { sql.notes.wroteOutbox = true }
                } else {
                    try sql.insert(sealed(endpoint), into: "webhook_endpoints")
                }
            }
            let names = Set(configured.map(\.id))
            for var removed in try sql.fetchAll(WebhookEndpoint.self, "SELECT * FROM webhook_endpoints WHERE from_config = ?", [.bool(true)])
            where !names.contains(removed.id) && removed.enabled {
                removed.enabled = false
                removed.disabledReason = "removed from the configuration file"
                try sql.update(removed, in: "webhook_endpoints", key: "id")
            }
        }
    }

    // MARK: Outbox

    /// Writes one delivery of `type` with `data` for every endpoint that wants it, inside the caller's transaction.
    func enqueue(_ type: WebhookEventType, data: [String: Any], outboundID: String? = nil, campaignID: String? = nil,
                        now: Date, in sql: any SQLConnection) throws {
        let endpoints = try sql.fetchAll(WebhookEndpoint.self, "SELECT * FROM webhook_endpoints WHERE enabled = ?", [.bool(true)]).filter { $0.wants(type) }
        guard !endpoints.isEmpty else { return }
        let body: [String: Any] = ["type": type.rawValue, "timestamp": CallStore.iso8601(now), "data": data]
        let payload = String(decoding: try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
        for endpoint in endpoints {
            try sql.insert(WebhookDelivery(id: WebhookDelivery.newID(), endpointId: endpoint.id, eventType: type.rawValue, outboundId: outboundID,
                                           campaignId: campaignID, payload: sealed(payload), state: .pending, attemptCount: 0, nextAttemptAt: now,
                                           createdAt: now), into: "webhook_deliveries")
        }
        sql.notes.wroteOutbox = true
    }

    /// When the earliest pending delivery to an endpoint that is on is due; nil: none is pending.
    public func nextAttempt() async throws -> Date? {
        try await sqlRead {
            try $0.scalar(Date.self, """
                SELECT MIN(next_attempt_at) FROM webhook_deliveries
                WHERE state = 'pending' AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE enabled = ?)
                """, [.bool(true)])
        }
    }

    /// Claims up to `limit` deliveries that are due, with their endpoints: each one's next attempt
    /// moves `lease` ahead, so a delivery in flight is not claimed twice, and one a crash
    /// interrupted is tried again once the lease runs out. A turned-off endpoint's deliveries wait
    /// (they go out if it is turned on again).
    public func claimDue(now: Date = Date(), limit: Int, lease: TimeInterval) async throws -> [(WebhookDelivery, WebhookEndpoint)] {
        try await sqlWrite { [self] sql in
            let due = try sql.fetchAll(WebhookDelivery.self, """
                SELECT * FROM webhook_deliveries
                WHERE state = 'pending' AND next_attempt_at <= ? AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE enabled = ?)
                ORDER BY next_attempt_at LIMIT ?\(sql.dialect.skipLocked)
                """, [.date(now), .bool(true), .integer(Int64(limit))])
            return try due.compactMap { delivery in
                guard let endpoint = try Self.endpoint(id: delivery.endpointId, in: sql) else { return nil }
                try sql.execute("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ?", now.addingTimeInterval(lease), delivery.id)
                return (try opened(delivery), try opened(endpoint))
            }
        }
    }

    /// Stores an attempt and what follows from it, in one transaction.
    public func record(_ attempt: WebhookAttempt, verdict: WebhookRetryPolicy.Verdict) async throws {
        try await sqlWrite { sql in
            try sql.insert(attempt, into: "webhook_attempts")
            guard var delivery = try Self.delivery(id: attempt.deliveryId, in: sql) else { return }
            delivery.record(attemptAt: attempt.attemptedAt, status: attempt.status, error: attempt.error, verdict: verdict,
                            gone: "the receiver answered 410 Gone: endpoint turned off")
            if verdict == .disableEndpoint {
                try sql.execute("UPDATE webhook_endpoints SET enabled = ?, disabled_reason = '410 Gone from the receiver' WHERE id = ?",
                                false, delivery.endpointId)
            }
            try sql.update(delivery, in: "webhook_deliveries", key: "id")
        }
    }

    /// Sends a delivery again at once (same webhook-id), whatever became of it.
    public func replay(id: String, now: Date = Date()) async throws -> WebhookDelivery {
        try await sqlWrite { [self] sql in
            guard var delivery = try Self.delivery(id: id, in: sql) else { throw Failure.deliveryNotFound(id) }
            delivery.state = .pending
            delivery.nextAttemptAt = now
            try sql.update(delivery, in: "webhook_deliveries", key: "id")
            sql.notes.wroteOutbox = true
            return try opened(delivery)
        }
    }

    public func delivery(id: String) async throws -> WebhookDelivery? {
        try await sqlRead { try Self.delivery(id: id, in: $0) }.map(opened)
    }

    static func delivery(id: String, in sql: any SQLConnection) throws -> WebhookDelivery? {
        try sql.fetchOne(WebhookDelivery.self, "SELECT * FROM webhook_deliveries WHERE id = ?", [.text(id)])
    }

    /// An endpoint's deliveries, newest first.
    public func deliveries(endpointID: String, state: WebhookDelivery.State? = nil, limit: Int = 50, offset: Int = 0) async throws -> [WebhookDelivery] {
        try await sqlRead { sql in
            try sql.fetchAll(WebhookDelivery.self, """
                SELECT * FROM webhook_deliveries WHERE endpoint_id = ?\(state == nil ? "" : " AND state = ?")
                ORDER BY created_at DESC, id LIMIT ? OFFSET ?
                """, [.text(endpointID)] + (state.map { [.text($0.rawValue)] } ?? []) + [.integer(Int64(limit)), .integer(Int64(offset))])
        }.map(opened)
    }

    /// Deliveries that report a call, oldest first.
    public func deliveries(callID: String) async throws -> [WebhookDelivery] {
        try await sqlRead { try $0.fetchAll(WebhookDelivery.self, "SELECT * FROM webhook_deliveries WHERE outbound_id = ? ORDER BY created_at, id", [.text(callID)]) }
            .map(opened)
    }

    public func attempts(deliveryIDs: [String]) async throws -> [String: [WebhookAttempt]] {
        guard !deliveryIDs.isEmpty else { return [:] }
        return try await sqlRead { sql in
            Dictionary(grouping: try sql.fetchAll(WebhookAttempt.self, "SELECT * FROM webhook_attempts WHERE delivery_id IN (\(sql.placeholders(deliveryIDs.count))) ORDER BY id",
                                                  deliveryIDs.map(\.sqlValue)), by: \.deliveryId)
        }
    }
}
