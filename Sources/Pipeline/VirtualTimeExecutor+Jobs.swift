import Dispatch
import Synchronization

extension VirtualTimeExecutor {
    /// Runs `job` (blocking native work: a transcription, a synthesis) on `queue`, a real thread,
    /// and returns its result when virtual time reaches `deadline`.
    ///
    /// Meanwhile the calls go on in virtual time on the executor's own thread — frames arrive,
    /// other jobs start — so a run uses a second core. It stays the same run every time: the result
    /// is handed back by a timer, in deadline order like every other, and if the job is still running
    /// when time gets there, time stands still until it is done. The job must not read what the
    /// calls change meanwhile (it takes its input by value).
    public func result<T: Sendable>(at deadline: ContinuousClock.Instant, on queue: DispatchQueue,
                                    of job: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        let handoff = Handoff<T>()
        let outcome = JobOutcome<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
                guard handoff.keep(continuation) else { return }
                let id = schedule(at: deadline, running: true) { handoff.resume(outcome.result) }
                handoff.timer = id
                queue.async { [self] in
                    outcome.result = Result { try job() }
                    finished(id)
                }
            }
        } onCancel: {
            // The job runs on (a native call cannot be stopped); its timer is taken off at once.
            if let id = handoff.timer { cancel(id) }
            handoff.resume(.failure(CancellationError()))
        }
    }

    /// A job's result, written on the job's thread before its timer is let go and read when it fires.
    private final class JobOutcome<T: Sendable>: Sendable {
        private let stored = Mutex<Result<T, Error>>(.failure(CancellationError()))

        var result: Result<T, Error> {
            get { stored.withLock { $0 } }
            set { stored.withLock { $0 = newValue } }
        }
    }
}
