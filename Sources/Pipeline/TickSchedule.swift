/// The 20 ms grid a pacer runs on: tick n is due at start + n × 20 ms, whatever the previous tick
/// cost or however late it woke, so lateness never accumulates. A stall longer than `maxLag`
/// re-anchors the grid rather than firing a burst of catch-up ticks.
public struct TickSchedule<C: Clock>: Sendable where C.Duration == Duration, C: Sendable {
    public typealias Statistics = TickStatistics

    public let clock: C
    public let interval: Duration
    public let maxLag: Duration
    public private(set) var statistics = Statistics()
    private var start: C.Instant
    private var n: Int64 = 0

    public init(clock: C, interval: Duration = .milliseconds(20), maxLag: Duration = .milliseconds(100)) {
        self.clock = clock
        self.interval = interval
        self.maxLag = maxLag
        self.start = clock.now
    }

    /// Sleeps until the next tick is due. False when the task was cancelled.
    public mutating func waitForNextTick() async -> Bool {
        if n > 0 {
            // Re-anchor after a stall: the tick that just ran was too late to catch up from.
            let previous = start.advanced(by: interval * (n - 1))
            if previous.duration(to: clock.now) > maxLag {
                start = clock.now
                n = 0
                statistics.reanchors += 1
            }
        }
        let deadline = start.advanced(by: interval * n)
        do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return false }
        let late = deadline.duration(to: clock.now).totalNanoseconds
        statistics.ticks += 1
        if late > interval.totalNanoseconds / 2 { statistics.lateTicks += 1 }
        statistics.maxLatenessNanoseconds = max(statistics.maxLatenessNanoseconds, late)
        n += 1
        return !Task.isCancelled
    }
}

/// How well a tick loop kept to its grid.
public struct TickStatistics: Sendable, Equatable {
    public var ticks = 0
    /// Ticks that ran more than half an interval after their deadline.
    public var lateTicks = 0
    public var maxLatenessNanoseconds = 0
    public var reanchors = 0
    /// Frames due in late ticks (filled in by `PacerScheduler`, which knows how many pacers ran).
    public var lateFrames = 0
}
