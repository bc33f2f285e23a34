import Foundation
import TestSupport
import Testing
@testable import Pipeline

/// The executor calls run on in virtual time: time moves only when every job is done and nothing
/// outside is pending, straight to the earliest timer, in the same order every run.
@Suite struct VirtualTimeExecutorTests {
    @Test func timersFireInDeadlineOrderAndTiesInTheOrderTheyWereSet() async throws {
        let executor = VirtualTimeExecutor()
        let started = ContinuousClock.now
        let order = try await executor.run {
            let order = Locked<[String]>([])
            let start = executor.now
            await withTaskGroup(of: Void.self) { group in
                for (name, ms) in [("c", 300), ("a", 100), ("b1", 200), ("b2", 200), ("long", 3_600_000)] {
                    group.addTask {
                        try? await executor.sleep(until: start.advanced(by: .milliseconds(ms)))
                        order.withLock { $0.append("\(name)@\(start.duration(to: executor.now).totalMilliseconds)") }
                    }
                }
            }
            return order.withLock { $0 }
        }
        #expect(order == ["a@100.0", "b1@200.0", "b2@200.0", "c@300.0", "long@3600000.0"])
        #expect(executor.elapsed == .seconds(3600))
        #expect(started.duration(to: .now) < .seconds(60), "an hour of virtual time costs no real hour")
        #expect(executor.strayWakeups == 0)
    }

    @Test func timeStandsStillWhileWorkOutsideIsPending() async throws {
        let executor = VirtualTimeExecutor()
        let events = try await executor.run {
            let events = Locked<[String]>([])
            let start = executor.now
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    try? await executor.sleep(until: start.advanced(by: .milliseconds(10)))
                    events.withLock { $0.append("timer at \(start.duration(to: executor.now).totalMilliseconds) ms") }
                }
                group.addTask {
                    // 200 real milliseconds on another thread: the 10-ms timer must wait for it.
                    await VirtualTimeExecutor.outside {
                        await withCheckedContinuation { continuation in
                            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { continuation.resume() }
                        }
                    }
                    events.withLock { $0.append("outside done at \(start.duration(to: executor.now).totalMilliseconds) ms") }
                }
            }
            return events.withLock { $0 }
        }
        #expect(events == ["outside done at 0.0 ms", "timer at 10.0 ms"])
        #expect(executor.strayWakeups == 0)
    }

    @Test func aCancelledSleepEndsAtOnceAndItsTimerIsGone() async throws {
        let executor = VirtualTimeExecutor()
        let (outcome, elapsed) = try await executor.run {
            let sleeper = Task(executorPreference: executor) { () -> String in
                do {
                    try await executor.sleep(until: executor.now.advanced(by: .seconds(100)))
                    return "woke"
                } catch {
                    return "\(type(of: error))"
                }
            }
            try await executor.sleep(until: executor.now.advanced(by: .seconds(1)))
            sleeper.cancel()
            return (await sleeper.value, executor.elapsed)
        }
        #expect(outcome == "CancellationError")
        #expect(elapsed == .seconds(1))
        #expect(executor.elapsed == .seconds(1), "the cancelled 100-s timer did not move time")
    }

    @Test func blockingWorkRunsInPlaceAndItsResultComesItsLatencyLater() async throws {
        let executor = VirtualTimeExecutor()
        let pool = BlockingWorkPool(label: "test", width: 1, capacity: 1, virtualLatency: .milliseconds(250))
        let (value, elapsed) = try await executor.run {
            let caller = Self.thread()
            let value = try await pool.run { Self.thread() == caller ? 42 : -1 }
            return (value, executor.elapsed)
        }
        #expect(value == 42, "the job ran on the caller's thread, the executor's own")
        #expect(elapsed == .milliseconds(250))
    }

    static func thread() -> pthread_t { pthread_self() }

    @Test func workThatLeavesTheVirtualTimeIsCountedAsAStray() async throws {
        let executor = VirtualTimeExecutor()
        try await executor.run {
            try await Task.sleep(for: .milliseconds(5))   // a real sleep: it comes back from a timer thread
        }
        #expect(executor.strayWakeups == 1)
    }
}
