import NIOCore
import NIOPosix
import Pipeline
import Synchronization

/// Wakes a loop when its earliest deadline comes or when there is new work, instead of the loop
/// looking every few milliseconds: the SIP user agent arms it with its timers' earliest deadline
/// whenever they change, the call manager with the next queued call's time and rings it when a call
/// is queued or a place frees up. One waiter at a time; a ring with nobody waiting is kept for the
/// next wait, so nothing armed or rung between two waits is lost. The timer runs on one event loop
/// (a cancelled one leaves its queue at once).
public final class WakeAlarm: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
        var armedAt: ContinuousClock.Instant?
        var timer: Timer?
    }

    /// An armed timer: on the event loop, or in virtual time.
    private enum Timer {
        case loop(Scheduled<Void>)
        case virtual(UInt64, VirtualTimeExecutor)

        func cancel() {
            switch self {
            case .loop(let scheduled): scheduled.cancel()
            case .virtual(let id, let executor): executor.cancel(id)
            }
        }
    }

    private let state = Mutex(State())
    private let loop: any EventLoop
    private let clock: CallClock

    /// `clock`: what its deadlines are read on (a virtual time's timers fire in it).
    public init(loop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next(), clock: CallClock = .continuous) {
        self.loop = loop
        self.clock = clock
    }

    /// Rings at `deadline` (nil: never), in place of whatever was armed; at once if it has passed.
    public func arm(at deadline: ContinuousClock.Instant?) {
        let now = clock.now
        let (replaced, ringNow) = state.withLock { s -> (Timer?, Bool) in
            guard s.armedAt != deadline || s.timer == nil && deadline != nil else { return (nil, false) }
            let replaced = s.timer
            s.timer = nil
            s.armedAt = deadline
            guard let deadline else { return (replaced, false) }
            guard deadline > now else { return (replaced, true) }
            if let virtualTime = clock.virtualTime {
                s.timer = .virtual(virtualTime.schedule(at: deadline) { [weak self] in self?.ring() }, virtualTime)
                return (replaced, false)
            }
            let wait = now.duration(to: deadline)
            let nanoseconds = wait.components.seconds * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000
            s.timer = .loop(loop.scheduleTask(in: .nanoseconds(nanoseconds)) { [weak self] in self?.ring() })
            return (replaced, false)
        }
        replaced?.cancel()
        if ringNow { ring() }
    }

    /// Wakes the waiter now (or the next one to wait).
    public func ring() {
        let (waiter, timer) = state.withLock { s -> (CheckedContinuation<Void, Never>?, Timer?) in
            let timer = s.timer
            s.timer = nil
            s.armedAt = nil
            guard let waiter = s.waiter else {
                s.rung = true
                return (nil, timer)
            }
            s.waiter = nil
            return (waiter, timer)
        }
        timer?.cancel()   // rung before its time: nobody needs it to fire (a no-op when it is what rang)
        waiter?.resume()
    }

    /// Returns at the next ring, or when the task is cancelled.
    public func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { s -> Bool in
                    if s.rung {
                        s.rung = false
                        return true
                    }
                    s.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            ring()
        }
    }
}
