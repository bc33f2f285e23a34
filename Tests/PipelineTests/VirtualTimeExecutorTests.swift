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

    @Test func blockingWorkRunsOnItsLaneWhileTimeGoesOnAndItsResultComesItsLatencyLater() async throws {
        let executor = VirtualTimeExecutor()
        let pool = BlockingWorkPool(label: "test", width: 1, capacity: 1, virtualLatency: .milliseconds(250))
        let (ranElsewhere, heardTheCall, elapsed) = try await executor.run {
            let caller = Self.thread()
            let signal = DispatchSemaphore(value: 0)
            // The job waits for the call's side to reach 100 ms: only time that goes on while the job
            // runs gets there (in place, or with time held, it would wait its full 10 s and say so).
            async let job = pool.run { (Self.thread() != caller, signal.wait(timeout: .now() + 10) == .success) }
            try await executor.sleep(until: executor.now.advanced(by: .milliseconds(100)))
            signal.signal()
            let (ranElsewhere, heard) = try await job
            return (ranElsewhere, heard, executor.elapsed)
        }
        #expect(ranElsewhere, "the job ran on its lane, not the executor's thread")
        #expect(heardTheCall, "virtual time went on to 100 ms while the job ran")
        #expect(elapsed == .milliseconds(250))
        #expect(executor.strayWakeups == 0)
    }

    @Test func aJobDueAtOnceRunsInPlaceLikeAResultFromACache() async throws {
        let executor = VirtualTimeExecutor()
        let pool = BlockingWorkPool(label: "test", width: 1, capacity: 1)
        let (inPlace, elapsed) = try await executor.run {
            let caller = Self.thread()
            let inPlace = try await pool.run { Self.thread() == caller }
            return (inPlace, executor.elapsed)
        }
        #expect(inPlace, "no other job of the instant ran before it, as none would before a cached result")
        #expect(elapsed == .zero)
    }

    @Test func aJobSlowerThanItsLatencyHoldsTimeSoTheOrderNeverChanges() async throws {
        // Each job takes 50 ms of real time, five times its virtual latency: the timers behind its
        // result wait for it, so the order is the virtual one however slow the machine is.
        let executor = VirtualTimeExecutor()
        let pool = BlockingWorkPool(label: "test", width: 2, capacity: 2, virtualLatency: .milliseconds(10))
        let order = try await executor.run {
            let order = Locked<[String]>([])
            let start = executor.now
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    try? await executor.sleep(until: start.advanced(by: .milliseconds(15)))
                    order.withLock { $0.append("timer@15") }
                }
                for name in ["slow", "fast"] {
                    group.addTask {
                        let value = try? await pool.run { () -> String in
                            if name == "slow" { Thread.sleep(forTimeInterval: 0.05) }
                            return name
                        }
                        order.withLock { $0.append("\(value ?? "nil")@\(Int(start.duration(to: executor.now).totalMilliseconds))") }
                    }
                }
            }
            return order.withLock { $0 }
        }
        #expect(order == ["slow@10", "fast@10", "timer@15"], "results at their latency in the order asked, then the timer")
        #expect(executor.strayWakeups == 0)
    }

    @Test func aCancelledWaitForAJobTakesItsTimerOff() async throws {
        let executor = VirtualTimeExecutor()
        let pool = BlockingWorkPool(label: "test", width: 1, capacity: 1, virtualLatency: .seconds(100))
        let (outcome, elapsed) = try await executor.run {
            let waiter = Task(executorPreference: executor) { () -> String in
                do { return try await pool.run { "done" } } catch { return "\(type(of: error))" }
            }
            try await executor.sleep(until: executor.now.advanced(by: .seconds(1)))
            waiter.cancel()
            return (await waiter.value, executor.elapsed)
        }
        #expect(outcome == "CancellationError")
        #expect(elapsed == .seconds(1))
        #expect(executor.elapsed == .seconds(1), "the cancelled job's 100-s result did not move time")
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
