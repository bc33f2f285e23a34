import Pipeline
import Synchronization

/// A clock for tests in which time moves only when code sleeps or the test advances it.
/// A sleep wakes at its deadline plus an "oversleep" drawn from a seeded generator, the way a
/// real timer wakes a little late; `advance(by:)` stands for time spent working.
final class SimulatedClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct State {
        var now = Duration.zero
        var seed: UInt64
        var sleeps = 0
    }

    private let state: Mutex<State>
    private let maxOversleepNanoseconds: UInt64

    init(maxOversleep: Duration = .zero, seed: UInt64 = 42) {
        state = Mutex(State(seed: seed))
        let (s, atto) = maxOversleep.components
        maxOversleepNanoseconds = UInt64(s) * 1_000_000_000 + UInt64(atto / 1_000_000_000)
    }

    var now: Instant { Instant(offset: state.withLock { $0.now }) }
    var minimumResolution: Duration { .nanoseconds(1) }
    var sleeps: Int { state.withLock { $0.sleeps } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { s in
            s.seed = s.seed &* 6364136223846793005 &+ 1442695040888963407
            let jitter = maxOversleepNanoseconds == 0 ? 0 : (s.seed >> 33) % (maxOversleepNanoseconds + 1)
            s.now = max(s.now, deadline.offset) + .nanoseconds(Int64(jitter))
            s.sleeps += 1
        }
        await Task.yield()
    }

    func advance(by duration: Duration) {
        state.withLock { $0.now += duration }
    }
}

extension Duration {
    var milliseconds: Double { totalMilliseconds }
}
