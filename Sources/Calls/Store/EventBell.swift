import Foundation
import Bridge
import Synchronization

/// Wakes the readers of the event table when another node announces new events (PostgreSQL
/// NOTIFY), so an idle `/api/events` stream need not poll often. A reader waits with a timeout:
/// the table stays the source of truth, the bell only says "look now".
final class EventBell: Sendable {
    private enum Waiter {
        /// Waiting, its continuation not registered yet.
        case starting
        case waiting(CheckedContinuation<Void, Never>)
        /// Rung before its continuation was registered: the registration returns at once.
        case rung
        /// Gave up (timed out or cancelled) before its continuation was registered.
        case gone
    }

    private let waiters = Mutex<[UUID: Waiter]>([:])

    /// Wakes every reader waiting now.
    func ring() {
        let woken = waiters.withLock { waiters in
            var woken: [CheckedContinuation<Void, Never>] = []
            for (id, waiter) in waiters {
                switch waiter {
                case .waiting(let continuation): woken.append(continuation); waiters[id] = nil
                case .starting: waiters[id] = .rung
                case .rung, .gone: break
                }
            }
            return woken
        }
        for continuation in woken { continuation.resume() }
    }

    /// Returns at the next ring, after `timeout`, or when the task is cancelled, whichever is first.
    func wait(timeout: Duration) async {
        let id = UUID()
        waiters.withLock { $0[id] = .starting }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let done = self.waiters.withLock { waiters in
                        switch waiters[id] {
                        case .gone, .rung: waiters[id] = nil; return true
                        default: waiters[id] = .waiting(continuation); return false
                        }
                    }
                    if done { continuation.resume() }
                }
            }
            group.addTask { try? await Task.sleepOnEventLoop(for: timeout) }
            await group.next()
            let pending: CheckedContinuation<Void, Never>? = waiters.withLock { waiters in
                switch waiters[id] {
                case .waiting(let continuation): waiters[id] = nil; return continuation
                case .starting: waiters[id] = .gone; return nil   // its registration resumes itself
                case .rung, .gone, nil: return nil                  // nil: rung and resumed
                }
            }
            pending?.resume()
            group.cancelAll()
        }
    }

    /// Readers waiting now (for tests).
    var waiting: Int { waiters.withLock { $0.count } }
}
