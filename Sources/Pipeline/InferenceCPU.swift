import Glibc
import Synchronization

/// The CPU the blocking work pools' jobs have used, by pool: transcriptions, syntheses, the
/// end-of-turn model. A job runs on one lane thread (the ONNX sessions run single-threaded, on
/// the caller's thread), so that thread's own CPU clock, read before and after, is what the job
/// cost — where the process's clock would also count every call's media and whatever else ran
/// meanwhile. `/metrics` shows the totals (`voicebridge_inference_cpu_seconds_total{pool}`), and
/// `make bench`'s capacity suite splits a call's CPU by them.
public enum InferenceCPU {
    public struct Total: Sendable, Equatable {
        public var nanoseconds = 0
        public var jobs = 0
        public var seconds: Double { Double(nanoseconds) / 1e9 }
        public init() {}
    }

    private static let totals = Mutex<[String: Total]>([:])

    /// The totals since the process started, by pool name.
    public static var byPool: [String: Total] { totals.withLock { $0 } }

    /// Runs `job` and adds the CPU its thread used meanwhile to `pool`.
    static func measure<T>(pool: String, _ job: () throws -> T) rethrows -> T {
        let start = threadNanoseconds()
        defer {
            let used = threadNanoseconds() - start
            totals.withLock { totals in
                totals[pool, default: Total()].nanoseconds += used
                totals[pool, default: Total()].jobs += 1
            }
        }
        return try job()
    }

    /// The calling thread's CPU time so far.
    static func threadNanoseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return now.tv_sec * 1_000_000_000 + now.tv_nsec
    }
}
