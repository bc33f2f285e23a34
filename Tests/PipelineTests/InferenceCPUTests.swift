import Foundation
import Glibc
import Pipeline
import Testing

/// What a pool's jobs cost, read on their own threads' CPU clocks: work counts, waiting does not —
/// whatever else the machine runs meanwhile.
struct InferenceCPUTests {
    static func threadCPU() -> Duration {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }

    @Test func aPoolsJobsAddTheCPUTheirThreadUsedAndNotTheirWaits() async throws {
        let pool = BlockingWorkPool(label: "voicebridge.cpu-test-\(UUID().uuidString.prefix(8))", width: 1, capacity: 4)
        #expect(pool.name.hasPrefix("cpu-test-"), "the pool's name drops the label's \"voicebridge.\"")
        let before = InferenceCPU.byPool[pool.name] ?? InferenceCPU.Total()
        try await pool.run {
            let start = Self.threadCPU()
            var x = 0.0
            while Self.threadCPU() - start < .milliseconds(30) { x += sin(x + 1) }
            _ = x
        }
        let busy = try #require(InferenceCPU.byPool[pool.name])
        #expect(busy.jobs == before.jobs + 1)
        #expect((0.030...0.080).contains(busy.seconds - before.seconds), "30 ms of the thread's CPU: \(busy.seconds - before.seconds) s")
        _ = try await pool.run { usleep(100_000) }   // 100 ms asleep on the lane
        let idle = try #require(InferenceCPU.byPool[pool.name])
        #expect(idle.jobs == busy.jobs + 1)
        #expect(idle.seconds - busy.seconds < 0.010, "a job that waits costs next to no CPU: \(idle.seconds - busy.seconds) s")
    }
}
