import Foundation
import Pipeline

/// The clock a call's waits and stamps read: the continuous clock in production, or the virtual
/// time of a `VirtualTimeExecutor` (tests, test runs), where a call runs as fast as the CPU allows
/// and the same inputs give the same call. Its instants are `ContinuousClock` instants either way,
/// so what stores them needs no other type.
public struct CallClock: Clock {
    public typealias Instant = ContinuousClock.Instant

    /// The virtual time this clock reads; nil: the continuous clock.
    public let virtualTime: VirtualTimeExecutor?

    /// The date virtual time's zero stands for; nil: `date` is the wall clock's.
    public let dateEpoch: Date?

    /// `datesFrom`: the date virtual time starts at, so that what a call stamps (created, answered,
    /// ended, due again) moves with its waits; without it, a virtual call stamps wall-clock dates
    /// (a test run an operator watches is dated as it ran).
    public init(virtualTime: VirtualTimeExecutor?, datesFrom dateEpoch: Date? = nil) {
        self.virtualTime = virtualTime
        self.dateEpoch = virtualTime == nil ? nil : dateEpoch
    }

    public static let continuous = CallClock(virtualTime: nil)

    public var now: Instant { virtualTime?.now ?? .now }

    /// The date to stamp: the wall clock, or the epoch plus the virtual time elapsed.
    public var date: Date {
        guard let virtualTime, let dateEpoch else { return Date() }
        return dateEpoch.addingTimeInterval(virtualTime.elapsed.totalSeconds)
    }

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
