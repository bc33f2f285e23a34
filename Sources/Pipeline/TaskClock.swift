/// The clock of the task that reads it: the virtual time the task runs in
/// (`VirtualTimeExecutor.current`), else the continuous clock.
///
/// Why: the engines and the tool runner are built once and serve calls on either clock — a
/// server's calls in real time, a test run's in virtual time, from the same objects — so they are
/// not handed a clock; whoever runs the call sets it for the call's tasks (`VirtualTimeExecutor.run`)
/// and their waits and stamps read it here. Production runs no virtual time, so this is the
/// continuous clock there, and nothing reads the wall clock behind it.
public struct TaskClock: Clock, Sendable {
    public typealias Instant = ContinuousClock.Instant

    public init() {}

    public var now: Instant { VirtualTimeExecutor.now }

    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        if let time = VirtualTimeExecutor.current {
            try await time.sleep(until: deadline)
        } else {
            try await ContinuousClock().sleep(until: deadline, tolerance: tolerance)
        }
    }
}
