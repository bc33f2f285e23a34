import Foundation

/// A completed call's post-call analysis waiting to run: the outbox row, written in the
/// transaction that completes the call, so no analysis is lost to a crash or a failed request.
public struct CallAnalysisJob: Sendable, Equatable, Codable, OutboxRow {
    public typealias State = WebhookDelivery.State

    public var outboundId: String
    public var state: State
    public var attemptCount: Int
    public var nextAttemptAt: Date?
    public var lastStatus: Int?
    public var lastError: String?
    public var createdAt: Date
    public var deliveredAt: Date?
}
