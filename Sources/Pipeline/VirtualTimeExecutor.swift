import Foundation
import Synchronization

/// Runs whole calls — agent, callee, the legs between them, the store — on one thread in virtual
/// time: the time moves only when every job has run and nothing started outside is pending (a
/// database transaction), and then straight to the earliest timer. A call's verdict cannot depend
/// on how busy the machine is, a 30-s call costs only its CPU, and the same inputs give the same
/// call: jobs run one at a time in the order they were queued, timers fire in deadline order
/// (ties in the order they were set), and blocking work (`BlockingWorkPool`) runs on real threads
/// beside it, its result handed back at a fixed virtual latency (`result(at:on:of:)`).
///
/// `run(_:)` makes it the preferred executor of the body and every child task, and sets
/// `current`, which the pool, the store and the engines' stamps look at. Work that leaves it
/// (a task that is not a child, a real-time sleep) is counted as a stray wake-up when it comes
/// back: a virtual-time test checks there were none.
public final class VirtualTimeExecutor: TaskExecutor, @unchecked Sendable {
    /// The virtual time the current task runs in, if any.
    @TaskLocal public static var current: VirtualTimeExecutor?

    /// Where virtual time starts: instants are real `ContinuousClock` instants, so code that
    /// stores them needs no other type; only their progress is virtual.
    public let epoch: ContinuousClock.Instant

    private struct Timer {
        let deadline: ContinuousClock.Instant
        let id: UInt64
        let fire: @Sendable () -> Void
    }

    private struct State {
        var jobs: [UnownedJob] = []
        var nextJob = 0
        /// Sorted by deadline, then by id (the order they were set).
        var timers: [Timer] = []
        var lastID: UInt64 = 0
        var outside = 0
        /// Timers whose job (`result(at:on:of:)`) is still running on a real thread: time stops at them.
        var running: Set<UInt64> = []
        var elapsed: Duration = .zero
        var stopping = false
        var strayWakeups = 0
        var jobsRun = 0
        var thread: pthread_t?
    }

    // `state` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var state = State()

    public init() {
        epoch = .now
    }

    /// The virtual now.
    public var now: ContinuousClock.Instant { locked { epoch.advanced(by: $0.elapsed) } }

    /// Virtual time gone by since the start.
    public var elapsed: Duration { locked { $0.elapsed } }

    /// Jobs queued from another thread while nothing was pending outside: work that escaped the
    /// virtual time (an unstructured task, a real sleep) and came back at a moment of its own.
    public var strayWakeups: Int { locked { $0.strayWakeups } }

    /// Jobs run on its thread so far.
    public var jobsRun: Int { locked { $0.jobsRun } }

    /// Runs `body` on the state.
    private func locked<T>(_ body: (inout State) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(&state)
    }

    /// Runs `body` on the state, then wakes the loop: what it changed may let the loop go on.
    private func changing<T>(_ body: (inout State) -> T) -> T {
        defer { condition.signal() }
        return locked(body)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let caller = pthread_self()
        changing { s in
            s.jobs.append(job)
            if let thread = s.thread, pthread_equal(thread, caller) == 0, s.outside == 0 { s.strayWakeups += 1 }
        }
    }

    /// Calls `fire` when virtual time reaches `deadline` (at once if it has); returns the timer's id.
    @discardableResult
    public func schedule(at deadline: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
        schedule(at: deadline, running: false, fire)
    }

    /// `running`: the timer waits, time standing still at it, until `finished(_:)` is called with its id.
    func schedule(at deadline: ContinuousClock.Instant, running: Bool, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
        let id = changing { s -> UInt64 in
            s.lastID += 1
            if running { s.running.insert(s.lastID) }
            let timer = Timer(deadline: deadline, id: s.lastID, fire: fire)
            // After every timer due no later: ties fire in the order they were set.
            var low = 0, high = s.timers.count
            while low < high {
                let mid = (low + high) / 2
                if s.timers[mid].deadline <= deadline { low = mid + 1 } else { high = mid }
            }
            s.timers.insert(timer, at: low)
            return s.lastID
        }
        return id
    }

    /// The job timer `id` waits for is done: time may pass it.
    func finished(_ id: UInt64) {
        changing { _ = $0.running.remove(id) }
    }

    /// Takes a timer off before it fires; false when it has fired (or never existed).
    @discardableResult
    public func cancel(_ id: UInt64) -> Bool {
        locked { s in
            guard let index = s.timers.firstIndex(where: { $0.id == id }) else { return false }
            s.timers.remove(at: index)
            return true
        }
    }

    /// Suspends until virtual time reaches `deadline`; throws `CancellationError` when cancelled first.
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try Task.checkCancellation()
        let sleeper = Handoff<Void>()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                guard sleeper.keep(continuation) else { return }
                sleeper.timer = schedule(at: deadline) { sleeper.resume(.success(())) }
            }
        } onCancel: {
            if let id = sleeper.timer { cancel(id) }
            sleeper.resume(.failure(CancellationError()))
        }
    }

    /// Runs `work`, which waits on something outside virtual time (a database transaction on its
    /// own threads): time stands still until it is done. Outside a virtual time, just `work`.
    public static func outside<T, Failure: Error>(_ work: () async throws(Failure) -> T) async throws(Failure) -> T {
        guard let executor = current else { return try await work() }
        executor.locked { $0.outside += 1 }
        defer { executor.changing { $0.outside -= 1 } }
        return try await work()
    }

    /// Runs `body` and every child task it starts in this virtual time, on a thread of its own
    /// that ends when `body` returns.
    public func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let started = Thread { [self] in loop() }
        started.name = "voicebridge.virtual-time"
        started.start()
        defer { changing { $0.stopping = true } }
        // The hop onto this executor comes from another thread: not a stray.
        locked { $0.outside += 1 }
        return try await Self.$current.withValue(self) {
            try await withTaskExecutorPreference(self) {
                changing { $0.outside -= 1 }
                // Stopped before the hop back to the caller: with nothing left to run, time would
                // otherwise move on to timers nobody waits for (a call's bounds, an alarm's).
                defer { changing { $0.stopping = true } }
                return try await body()
            }
        }
    }

    private func loop() {
        condition.lock()
        state.thread = pthread_self()
        while true {
            if state.nextJob < state.jobs.count {
                let job = state.jobs[state.nextJob]
                state.nextJob += 1
                state.jobsRun += 1
                if state.nextJob > 1024, state.nextJob * 2 > state.jobs.count {
                    state.jobs.removeFirst(state.nextJob)
                    state.nextJob = 0
                }
                condition.unlock()
                job.runSynchronously(on: asUnownedTaskExecutor())
                condition.lock()
                continue
            }
            if state.stopping { break }
            guard state.outside == 0, let first = state.timers.first, !state.running.contains(first.id) else {
                condition.wait()
                continue
            }
            // Nothing can run before the earliest timer: time moves to it.
            let timer = state.timers.removeFirst()
            state.elapsed = max(state.elapsed, epoch.duration(to: timer.deadline))
            condition.unlock()
            timer.fire()
            condition.lock()
        }
        state.thread = nil
        condition.unlock()
    }

    /// A waiting task's continuation, resumed once: by its timer or by its cancellation.
    final class Handoff<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<T, Error>?
        private var done = false
        private var timerID: UInt64?

        var timer: UInt64? {
            get { lock.withLock { timerID } }
            set { lock.withLock { timerID = newValue } }
        }

        /// Keeps the continuation; false (having resumed it) when already cancelled.
        func keep(_ continuation: CheckedContinuation<T, Error>) -> Bool {
            let cancelled = lock.withLock { () -> Bool in
                if !done { self.continuation = continuation }
                return done
            }
            if cancelled { continuation.resume(throwing: CancellationError()) }
            return !cancelled
        }

        func resume(_ result: Result<T, Error>) {
            let continuation = lock.withLock { () -> CheckedContinuation<T, Error>? in
                done = true
                return self.continuation.take()
            }
            continuation?.resume(with: result)
        }
    }
}

extension VirtualTimeExecutor {
    /// Now in the virtual time the current task runs in, else on the continuous clock: for stamps
    /// taken where no clock is handed in (an engine's milestones).
    public static var now: ContinuousClock.Instant { current?.now ?? .now }
}
