import Foundation

/// One event for one endpoint: the outbox row. Its id is the `webhook-id` header, the same on every
/// attempt, so a receiver drops duplicates by it. The body is fixed when the row is written.
public struct WebhookDelivery: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Codable {
        /// Waiting for its next attempt (`next_attempt_at`).
        case pending
        case delivered
        /// Given up: the receiver refused it (a 4xx), or the retries ran out. A replay sends it again.
        case failed
    }

    public var id: String
    public var endpointId: String
    public var eventType: String
    public var outboundId: String?
    public var campaignId: String?
    /// The JSON body exactly as it is signed and sent.
    public var payload: String
    public var state: State
    public var attemptCount: Int
    public var nextAttemptAt: Date?
    public var lastStatus: Int?
    public var lastError: String?
    public var createdAt: Date
    public var deliveredAt: Date?

    public static func newID() -> String {
        "msg_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }
}

/// One try at delivering: the receiver's status, or the network error, and how long it took.
public struct WebhookAttempt: Sendable, Equatable, Codable {
    public var id: Int64?
    public var deliveryId: String
    public var attemptedAt: Date
    public var status: Int?
    public var error: String?
    public var durationMs: Int

    public init(deliveryId: String, attemptedAt: Date, status: Int?, error: String?, durationMs: Int) {
        self.deliveryId = deliveryId
        self.attemptedAt = attemptedAt
        self.status = status
        self.error = error
        self.durationMs = durationMs
    }
}
