import Dispatch
import Synchronization

/// Runs blocking native calls (a Moonshine transcription, 0.2–1 s of both cores) off Swift's
/// cooperative pool, which has one thread per core and paces every call's audio: a blocked
/// cooperative thread would stall all calls at once.
///
/// `width` lanes run side by side; a lane that comes free takes the waiting job due first — one a
/// caller waits for is due when submitted, one wanted `.within` a slack that much later — and a
/// job submitted `.whenIdle` only when no other waits (`urgency`); at most `capacity` jobs are
/// waiting or running, beyond that `run` throws `Overloaded` at once instead of queueing work
/// whose result would come too late to matter. In virtual time (`VirtualTimeExecutor`) a job's
/// result comes `virtualLatency` later: the time such a job takes on a machine that keeps up
/// (frames go on arriving meanwhile, as they do on a real line), the same every run.
public final class BlockingWorkPool: Sendable {
    public struct Overloaded: Error, CustomStringConvertible {
        public let capacity: Int
        public var description: String { "\(capacity) blocking jobs are already waiting" }
    }

    /// Which waiting job a lane that comes free takes first.
    public enum Urgency: Sendable, Equatable {
        /// A live call waits for it.
        case now
        /// Wanted this long from now, not before: a reply's next clause, heard only once the audio
        /// made before it has played. A job a caller waits for meanwhile goes first; one whose
        /// slack is spent goes before those submitted after that.
        case within(Duration)
        /// Behind every `.now` job: a call's last words after its hang-up, which held the lanes
        /// for seconds while live calls' barge-in verdicts waited (30 Nov, `make bench`'s barge-in).
        case whenIdle
    }

    /// The urgency of the jobs the current task submits (`$urgency.withValue(.whenIdle) { … }`).
    @TaskLocal public static var urgency: Urgency = .now

    public let width: Int
    public let capacity: Int
    /// The pool's name in `InferenceCPU` and on `/metrics`: its label without "voicebridge.".
    public let name: String
    /// How long a job's result takes in virtual time.
    public let virtualLatency: Duration
    /// Time on `clock` since the pool was made: when a waiting job is due.
    private let elapsed: @Sendable () -> Duration
    /// What `run(within:)` measures its limit on. (On Linux a cancelled sleep on the continuous
    /// clock keeps ~740 bytes until its deadline; a limit here is seconds — a transcription's, the
    /// end-of-turn model's — so that is transient, unlike the hour-long call timers that sleep on
    /// an event loop's timer instead.)
    private let clock: any Clock<Duration> & Sendable
    private let lanes: [DispatchQueue]
    /// Turns waiting or running, per lane: one per job submitted (its turn may run another job).
    private let load: Mutex<[Int]>
    /// Jobs not yet taken by a lane.
    private let waitingJobs = Mutex(WaitingJobs())

    public init(label: String, width: Int, capacity: Int, virtualLatency: Duration = .zero, clock: any Clock<Duration> & Sendable = ContinuousClock()) {
        precondition(width > 0 && capacity >= width)
        self.virtualLatency = virtualLatency
        self.clock = clock
        elapsed = Self.stopwatch(on: clock)
        self.width = width
        self.capacity = capacity
        name = label.hasPrefix("voicebridge.") ? String(label.dropFirst("voicebridge.".count)) : label
        lanes = (0..<width).map { DispatchQueue(label: "\(label).\($0)", qos: .userInitiated) }
        load = Mutex(Array(repeating: 0, count: width))
    }

    private static func stopwatch<C: Clock<Duration>>(on clock: C) -> @Sendable () -> Duration {
        let origin = clock.now
        return { origin.duration(to: clock.now) }
    }

    /// Jobs waiting or running now.
    public var pending: Int { load.withLock { $0.reduce(0, +) } }

    /// Thrown by `run(within:)` when the job's result comes later than the caller can use it.
    public struct TooLate: Error, CustomStringConvertible {
        public let limit: Duration
        public var description: String { "no result within \(limit)" }
    }

    /// Runs `job` on a lane, in `urgency`'s order (the least busy lane takes the turn it adds).
    /// With `limit`, the caller stops waiting after that long (`TooLate`); cancelled, it stops
    /// waiting at once (`CancellationError`: a call that ended does not wait for a transcription
    /// nobody will read). A native call cannot be interrupted, so a job already running finishes on
    /// its lane and counts against `capacity` until then — its result is dropped; a job still
    /// waiting for its lane then is never run (run anyway, each one given up on made the next one
    /// late too: a simulated callee's ear under load missed one agent utterance after another).
    public func run<T: Sendable>(within limit: Duration? = nil, _ job: @escaping @Sendable () throws -> T) async throws -> T {
        // In virtual time a job whose result is due at once runs in place: there is no time for
        // anything to overlap it, and run elsewhere it would let the instant's other jobs go first,
        // which a result taken from a cache (a synthesizer's) does not — the same call would run
        // differently the second time. Any other job runs on its lane while the calls go on, and
        // its result comes `virtualLatency` later (`VirtualTimeExecutor.result`). `capacity` and
        // `limit` are not looked at: whether a job waits depends on real threads, never on a run.
        if let virtualTime = VirtualTimeExecutor.current {
            try Task.checkCancellation()
            if virtualLatency == .zero { return try InferenceCPU.measure(pool: name, job) }
            let lane = load.withLock { load -> Int in
                let lane = load.indices.min { load[$0] < load[$1] }!
                load[lane] += 1
                return lane
            }
            return try await virtualTime.result(at: virtualTime.now.advanced(by: virtualLatency), on: lanes[lane]) { [self] in
                defer { self.load.withLock { $0[lane] -= 1 } }
                return try InferenceCPU.measure(pool: self.name, job)
            }
        }
        let urgency = Self.urgency
        let lane = try load.withLock { load -> Int in
            guard load.reduce(0, +) < capacity else { throw Overloaded(capacity: capacity) }
            let lane = load.indices.min { load[$0] < load[$1] }!
            load[lane] += 1
            return lane
        }
        let waiting = Waiting<T>()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            // Whichever comes first — the result, the limit on the pool's clock, the cancellation —
            // resumes the caller; the limit's sleep ends with the wait.
            if let limit {
                group.addTask { [clock] in
                    guard (try? await clock.sleep(for: limit)) != nil else { return }
                    waiting.end(TooLate(limit: limit))
                }
            }
            defer { group.cancelAll() }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    guard waiting.keep(continuation) else {
                        load.withLock { $0[lane] -= 1 }
                        return
                    }
                    let entry = WaitingJob(isAwaited: { waiting.isAwaited }) { [name] in
                        let result = Result { try InferenceCPU.measure(pool: name, job) }
                        return { waiting.take()?.resume(with: result) }
                    }
                    let submitted = elapsed()
                    waitingJobs.withLock { $0.append(entry, urgency, at: submitted) }
                    lanes[lane].async { [self] in takeTurn(on: lane) }
                }
            } onCancel: {
                waiting.end(CancellationError())
            }
        }
    }

    /// A lane's turn: the waiting job due first whose caller still waits; any
    /// other taken on the way is dropped (nobody will read its result). The caller is resumed
    /// once the pool counts the lane free.
    private func takeTurn(on lane: Int) {
        var resume: (@Sendable () -> Void)?
        while resume == nil, let job = waitingJobs.withLock({ $0.next() }) {
            if job.isAwaited() { resume = job.run() }
        }
        load.withLock { $0[lane] -= 1 }
        resume?()
    }

    private struct WaitingJob: Sendable {
        let isAwaited: @Sendable () -> Bool
        /// Runs the job; returns what hands its result to the caller.
        let run: @Sendable () -> @Sendable () -> Void
    }

    /// Jobs by when they are due; at most `capacity` of them, so a scan for the first is short.
    private struct WaitingJobs {
        var due: [(job: WaitingJob, at: Duration)] = []
        var whenIdle: [WaitingJob] = []

        mutating func append(_ job: WaitingJob, _ urgency: Urgency, at submitted: Duration) {
            switch urgency {
            case .now: due.append((job, submitted))
            case .within(let slack): due.append((job, submitted + max(.zero, slack)))
            case .whenIdle: whenIdle.append(job)
            }
        }

        /// The job due first (of two due at once, the one submitted first).
        mutating func next() -> WaitingJob? {
            if let first = due.indices.min(by: { due[$0].at < due[$1].at }) { return due.remove(at: first).job }
            return whenIdle.isEmpty ? nil : whenIdle.removeFirst()
        }
    }

    /// A caller's continuation, handed out once; or, ended first (cancelled, or its limit
    /// reached), never taken.
    private final class Waiting<T: Sendable>: Sendable {
        private let state = Mutex<(continuation: CheckedContinuation<T, Error>?, ended: (any Error)?)>((nil, nil))

        /// Keeps `continuation` for the result; false (having resumed it) when the wait had already ended.
        func keep(_ continuation: CheckedContinuation<T, Error>) -> Bool {
            let ended = state.withLock { s -> (any Error)? in
                if s.ended == nil { s.continuation = continuation }
                return s.ended
            }
            if let ended { continuation.resume(throwing: ended) }
            return ended == nil
        }

        func take() -> CheckedContinuation<T, Error>? { state.withLock { $0.continuation.take() } }

        /// Ends the wait with `error`, unless its result (or another end) came first.
        func end(_ error: any Error) {
            let continuation = state.withLock { s -> CheckedContinuation<T, Error>? in
                guard s.ended == nil else { return nil }
                s.ended = error
                return s.continuation.take()
            }
            continuation?.resume(throwing: error)
        }

        /// Whether the caller still waits for the result.
        var isAwaited: Bool { state.withLock { $0.continuation != nil } }
    }
}
