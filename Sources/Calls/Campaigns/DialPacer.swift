/// A campaign's calls per minute: one dial every `60 / callsPerMinute` seconds, on a schedule kept
/// across ticks (so a coarse tick does not slow the rate), and no credit saved up while the campaign
/// could not dial (paused, out of its window, at its concurrency limit) — no burst afterwards.
/// Time is passed in (seconds on a monotonic clock), so tests drive hours of pacing in microseconds.
public struct DialPacer: Sendable, Equatable {
    public let callsPerMinute: Int
    private var next: Double?

    public init(callsPerMinute: Int) {
        precondition(callsPerMinute > 0)
        self.callsPerMinute = callsPerMinute
    }

    public var interval: Double { 60 / Double(callsPerMinute) }

    /// How many of `wanted` dials may start at `now` (seconds); counts them as started.
    public mutating func release(wanted: Int, now: Double) -> Int {
        var due = next ?? now
        guard wanted > 0 else {
            next = max(due, now)   // idle: no credit
            return 0
        }
        var released = 0
        while released < wanted, due <= now {
            released += 1
            due += interval
        }
        next = due
        return released
    }
}
