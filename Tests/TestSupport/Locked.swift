import Synchronization

/// A value several test tasks update: a Mutex in a class, so closures can share it — and a test can
/// wait on it: each change wakes the waiters whose condition it meets, so a wait ends at the change
/// itself, not at a polling loop's next look.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<State>

    public init(_ value: Value) { mutex = Mutex(State(value: value)) }

    /// Runs `body` on the value under the lock; then wakes every waiter whose condition the value meets.
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        var met: [CheckedContinuation<Void, Never>] = []
        defer { for waiter in met { waiter.resume() } }
        return try mutex.withLock { state in
            defer { met = state.takeMet() }
            return try body(&state.value)
        }
    }

    public var value: Value { mutex.withLock { $0.value } }

    /// Returns once `condition` holds — now, or at the change that makes it hold; throws after
    /// `timeout`, naming what it waited for and the value it saw last. `condition` runs under the
    /// lock: it reads the value it is given, never this `Locked` (which would wait on itself).
    public func wait(for what: String, timeout: Duration = .seconds(10), until condition: @escaping @Sendable (Value) -> Bool) async throws {
        do {
            try await withTimeout(timeout) { await self.met(condition) }
        } catch is TimedOut {
            throw WaitTimedOut(description: "waited \(timeout) for \(what); the value then: \(value)")
        }
    }

    /// Returns once `condition` holds, or the task is cancelled.
    private func met(_ condition: @escaping @Sendable (Value) -> Bool) async {
        let id = mutex.withLock { state in
            state.lastWaiter += 1
            return state.lastWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = mutex.withLock { state in
                    if Task.isCancelled || condition(state.value) { return true }
                    state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            mutex.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    private struct Waiter {
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var value: Value
        var waiters: [Int: Waiter] = [:]
        var lastWaiter = 0

        /// Removes the waiters whose condition the value meets, and returns them to be woken.
        mutating func takeMet() -> [CheckedContinuation<Void, Never>] {
            guard !waiters.isEmpty else { return [] }
            let met = waiters.filter { $0.value.condition(value) }
            for id in met.keys { waiters[id] = nil }
            return met.values.map(\.continuation)
        }
    }
}

/// A `Locked` value's wait that ended without its condition: what it waited for, and what it saw.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public let description: String
}

/// Runs `body`, failing with `TimedOut` if it takes longer than `limit` — so a test that waits
/// for an event that never comes fails instead of hanging the suite.
public func withTimeout<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TimedOut(limit: limit)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

public struct TimedOut: Error, CustomStringConvertible {
    public let limit: Duration
    public var description: String { "timed out after \(limit)" }
}
