import Foundation

/// One `on_end` tool for one ended call: the outbox row, written in the transaction that ends the
/// call, so the write it stands for (a CRM update) is never lost to a crash. Its body — the call's
/// result as its webhook carries it — is fixed when the row is written.
public struct AfterCallToolRun: Sendable, Equatable, Codable {
    public typealias State = WebhookDelivery.State

    public var id: String
    public var outboundId: String
    public var toolName: String
    /// The tool's declaration as JSON (secrets by reference only; resolved when it is sent).
    public var tool: String
    /// The JSON body, sealed like a webhook's when the store seals.
    public var payload: String
    public var state: State
    public var attemptCount: Int
    public var nextAttemptAt: Date?
    public var lastStatus: Int?
    public var lastError: String?
    public var createdAt: Date
    public var deliveredAt: Date?

    public static func newID() -> String {
        "run_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }
}
