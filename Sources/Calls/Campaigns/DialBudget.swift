/// Dials per minute shared by every running campaign (`outbound.campaign_calls_per_minute`): a
/// token bucket holding at most one second's worth, so campaigns that all want to dial at once
/// get that second's dials between them, and none saves up a burst. Each campaign's own pacing
/// (`DialPacer`) decides what it asks for; this decides how much of it all can have.
public struct DialBudget: Sendable, Equatable {
    public let callsPerMinute: Int
    private var tokens: Double
    private var last: Double?

    public init(callsPerMinute: Int) {
        precondition(callsPerMinute > 0)
        self.callsPerMinute = callsPerMinute
        tokens = Self.capacity(callsPerMinute)
    }

    static func capacity(_ perMinute: Int) -> Double { max(1, Double(perMinute) / 60) }

    /// How many of `wanted` dials may start at `now` (seconds on a monotonic clock); takes them.
    public mutating func take(_ wanted: Int, now: Double) -> Int {
        if let last { tokens = min(Self.capacity(callsPerMinute), tokens + (now - last) * Double(callsPerMinute) / 60) }
        last = now
        let granted = min(wanted, Int(tokens.rounded(.down)))
        tokens -= Double(granted)
        return max(0, granted)
    }
}
