import Foundation

/// A row of an outbox (a webhook delivery, an `on_end` tool run): the same columns for where it
/// stands, and the same bookkeeping after each attempt.
protocol OutboxRow {
    var state: WebhookDelivery.State { get set }
    var attemptCount: Int { get set }
    var nextAttemptAt: Date? { get set }
    var lastStatus: Int? { get set }
    var lastError: String? { get set }
    var deliveredAt: Date? { get set }
}

extension OutboxRow {
    /// What an attempt made at `at` came to, by the retry policy's verdict; `gone` says what a 410 did.
    mutating func record(attemptAt at: Date, status: Int?, error: String?, verdict: WebhookRetryPolicy.Verdict, gone: String) {
        attemptCount += 1
        lastStatus = status
        lastError = error
        switch verdict {
        case .delivered:
            state = .delivered; deliveredAt = at; nextAttemptAt = nil
        case .retry(let after):
            state = .pending; nextAttemptAt = at.addingTimeInterval(after)
        case .giveUp(let reason):
            state = .failed; nextAttemptAt = nil
            lastError = [error, reason].compactMap { $0 }.joined(separator: "; ")
        case .disableEndpoint:
            state = .failed; nextAttemptAt = nil; lastError = gone
        }
    }
}

extension WebhookDelivery: OutboxRow {}
extension AfterCallToolRun: OutboxRow {}
