import Foundation
import Synchronization

/// A clock that moves only when the test moves it (`advance(by:)`): a sleep returns once the
/// clock reaches its deadline, or throws when its task is cancelled. `untilSleeping(_:)` waits
/// for sleeps to be set, so a test knows a timer is armed without looking at the wall clock.
final class ManualClock: Clock, Sendable {
    typealias Instant = SimulatedClock.Instant

    private struct Sleeper {
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Duration.zero
        var sleepers: [UUID: Sleeper] = [:]
        /// Sleeps cancelled before they were set: set, they end at once.
        var cancelledEarly: Set<UUID> = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    var now: Instant { Instant(offset: state.withLock { $0.now }) }
    var minimumResolution: Duration { .nanoseconds(1) }
    /// Sleeps set and not yet over.
    var sleeping: Int { state.withLock { $0.sleepers.count } }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, watchers) = state.withLock { s -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if s.cancelledEarly.remove(id) != nil { return (.failure(CancellationError()), []) }
                    if deadline.offset <= s.now { return (.success(()), []) }
                    s.sleepers[id] = Sleeper(deadline: deadline.offset, continuation: continuation)
                    let count = s.sleepers.count
                    let woken = s.watchers.filter { $0.count <= count }.map(\.continuation)
                    s.watchers.removeAll { $0.count <= count }
                    return (nil, woken)
                }
                for watcher in watchers { watcher.resume() }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { s -> Sleeper? in
                if let sleeper = s.sleepers.removeValue(forKey: id) { return sleeper }
                s.cancelledEarly.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on; every sleep whose deadline it reaches returns.
    func advance(by duration: Duration) {
        let due = state.withLock { s -> [CheckedContinuation<Void, any Error>] in
            s.now += duration
            let due = s.sleepers.filter { $0.value.deadline <= s.now }
            for id in due.keys { s.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Returns once at least `count` sleeps are set.
    func untilSleeping(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.sleepers.count >= count { return true }
                s.watchers.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
