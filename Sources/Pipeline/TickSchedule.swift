/// The 20 ms grid a pacer runs on: tick n is due at start + n × 20 ms, whatever the previous tick
/// cost or however late it woke, so lateness never accumulates. A stall longer than `maxLag`
/// re-anchors the grid rather than firing a burst of catch-up ticks.
public struct TickSchedule<C: Clock>: Sendable where C.Duration == Duration, C: Sendable {
    public typealias Statistics = TickStatistics

    public let clock: C
    public let interval: Duration
    public let maxLag: Duration
    /// Lateness a playout buffer downstream hides: a Twilio stream keeps at least 40 ms queued
    /// at Twilio (`MediaStreamSocketLeg`), and phones' jitter buffers hold as much or more.
    public let hiddenLateness: Duration
    public private(set) var statistics = Statistics()
    private var start: C.Instant
    private var n: Int64 = 0

    public init(clock: C, interval: Duration = .milliseconds(20), maxLag: Duration = .milliseconds(100),
                hiddenLateness: Duration = .milliseconds(40)) {
        self.clock = clock
        self.interval = interval
        self.maxLag = maxLag
        self.hiddenLateness = hiddenLateness
        self.start = clock.now
    }

    /// Sleeps until the next tick is due. False when the task was cancelled.
    public mutating func waitForNextTick() async -> Bool {
        let deadline = nextDeadline()
        do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return false }
        ticked(deadline: deadline)
        return !Task.isCancelled
    }

    /// When the next tick is due — re-anchoring first if the last tick ran too late to catch up
    /// from. For drivers with their own timers (an event loop's), with `ticked(deadline:)`.
    public mutating func nextDeadline() -> C.Instant {
        if n > 0 {
            let previous = start.advanced(by: interval * (n - 1))
            if previous.duration(to: clock.now) > maxLag {
                start = clock.now
                n = 0
                statistics.reanchors += 1
            }
        }
        return start.advanced(by: interval * n)
    }

    /// The tick due at `deadline` is running now: counts it, and how late it is.
    public mutating func ticked(deadline: C.Instant) {
        let late = deadline.duration(to: clock.now).totalNanoseconds
        statistics.ticks += 1
        if late > interval.totalNanoseconds / 2 { statistics.lateTicks += 1 }
        if late > hiddenLateness.totalNanoseconds { statistics.audiblyLateTicks += 1 }
        statistics.maxLatenessNanoseconds = max(statistics.maxLatenessNanoseconds, late)
        n += 1
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
    /// Ticks later than `hiddenLateness` (40 ms): late enough to be heard as a gap.
    public var audiblyLateTicks = 0
    /// Frames due in those ticks (filled in by `PacerScheduler`).
    public var audiblyLateFrames = 0

    /// Adds another grid's counts (one running in step with this one, on another event loop):
    /// late ticks and frames summed, the worst lateness; `ticks` stays this grid's own.
    public mutating func include(_ other: TickStatistics) {
        lateTicks += other.lateTicks
        lateFrames += other.lateFrames
        audiblyLateTicks += other.audiblyLateTicks
        audiblyLateFrames += other.audiblyLateFrames
        reanchors += other.reanchors
        maxLatenessNanoseconds = max(maxLatenessNanoseconds, other.maxLatenessNanoseconds)
    }
}
