import Pipeline

/// The clock a call's waits and stamps read: the continuous clock in production, or the virtual
/// time of a `VirtualTimeExecutor` (tests, test runs), where a call runs as fast as the CPU allows
/// and the same inputs give the same call. Its instants are `ContinuousClock` instants either way,
/// so what stores them needs no other type.
public struct CallClock: Clock {
    public typealias Instant = ContinuousClock.Instant

    /// The virtual time this clock reads; nil: the continuous clock.
    public let virtualTime: VirtualTimeExecutor?

    public init(virtualTime: VirtualTimeExecutor?) {
        self.virtualTime = virtualTime
    }

    public static let continuous = CallClock(virtualTime: nil)

    public var now: Instant { virtualTime?.now ?? .now }

    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Continuous: on an event loop's timer (`Task.sleepOnEventLoop`), so that cancelling it gives
    /// its memory back at once.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        if let virtualTime {
            try await virtualTime.sleep(until: deadline)
        } else {
            try await Task.sleepOnEventLoop(for: ContinuousClock.now.duration(to: deadline))
        }
    }
}
