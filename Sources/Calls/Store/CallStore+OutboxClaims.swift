import Foundation
import Logging

/// The outboxes whose rows an attempt claims: claiming moves the row's next attempt a lease ahead
/// (`WebhookStore.claimDue`), so no other node or pass sends it meanwhile.
public enum Outbox: String, Sendable {
    case webhooks = "webhook_deliveries"
    case afterCallTools = "after_call_tools"
    case analyses = "call_analyses"

    var key: String { self == .analyses ? "outbound_id" : "id" }
}

extension CallStore {
    /// Gives back the claim of an attempt that shutdown cut off: the row is due at once, so the
    /// next start (or another node) sends it then instead of after the lease (the attempt's
    /// timeout + 30 s), which only a crash still costs. A row no longer pending keeps what its
    /// attempt stored. Not cancelled with the shutdown: the store's transactions are not.
    public func giveBackClaim(in outbox: Outbox, key: String, logger: Logger, now: Date = Date()) async {
        do {
            try await sqlWrite { sql in
                try sql.execute("UPDATE \(outbox.rawValue) SET next_attempt_at = ? WHERE \(outbox.key) = ? AND state = 'pending'", now, key)
            }
        } catch {
            logger.warning("could not give back an outbox claim; it is sent again once its lease runs out",
                           metadata: ["outbox": "\(outbox.rawValue)", "key": "\(key)", "error": "\(error)"])
        }
    }
}
