import Foundation

/// What to do after an attempt (Standard Webhooks' advice, PROTOCOLS-2 §2): 2xx is delivered; a
/// network error, a timeout, 408, 429 and 5xx are tried again after the next step of the schedule
/// (with jitter, or later when `Retry-After` asks); 410 Gone turns the endpoint off; any other answer
/// (3xx, 4xx) is the receiver's refusal, not retried. When the schedule runs out the delivery fails.
public struct WebhookRetryPolicy: Sendable, Equatable {
    public enum Verdict: Sendable, Equatable {
        case delivered
        case retry(after: TimeInterval)
        case giveUp(reason: String)
        /// 410 Gone: give up, and stop sending to this endpoint.
        case disableEndpoint
    }

    /// Delays before the 2nd, 3rd, … attempt. The default spans about three days: now, 5 s, 5 min,
    /// 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h.
    public var schedule: [TimeInterval]
    /// ± this fraction of each delay, so endpoints that failed together are not retried together.
    public var jitter: Double

    public static let standardSchedule: [TimeInterval] = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400]

    public init(schedule: [TimeInterval] = Self.standardSchedule, jitter: Double = 0.2) {
        self.schedule = schedule
        self.jitter = jitter
    }

    /// The verdict on attempt number `attempt` (1-based), answered `status` (nil: no answer at all).
    public func verdict(attempt: Int, status: Int?, retryAfter: String? = nil,
                        random: (ClosedRange<Double>) -> Double = { Double.random(in: $0) }) -> Verdict {
        switch status {
        case .some(200...299): return .delivered
        case .some(410): return .disableEndpoint
        case .none, .some(408), .some(429), .some(500...599): break
        case .some(let code): return .giveUp(reason: "the receiver answered \(code); not retried")
        }
        guard attempt <= schedule.count else {
            return .giveUp(reason: "no success after \(attempt) attempts over the whole retry schedule")
        }
        var delay = schedule[attempt - 1] * random((1 - jitter)...(1 + jitter))
        if let retryAfter, let seconds = TimeInterval(retryAfter.trimmingCharacters(in: .whitespaces)), seconds > delay {
            delay = min(seconds, 86_400)
        }
        return .retry(after: delay)
    }
}
