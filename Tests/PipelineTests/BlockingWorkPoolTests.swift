import Dispatch
import Pipeline
import Synchronization
import Testing
import TestSupport

/// The pool's refusals and limits. A limit is measured on the pool's clock: here a `ManualClock`
/// the test moves, so a limit of an hour passes in no time and passes exactly (on the wall clock
/// these tests would wait the hour).
@Suite struct BlockingWorkPoolTests {
    /// A job that says when it started on its lane, then holds the lane until `gate` opens.
    struct HeldJob: Sendable {
        let gate = DispatchSemaphore(value: 0)
        let started: AsyncStream<Void>
        let starting: AsyncStream<Void>.Continuation

        init() { (started, starting) = AsyncStream.makeStream(of: Void.self) }

        var body: @Sendable () -> Void {
            { [gate, starting] in
                starting.yield()
                gate.wait()
            }
        }

        func untilStarted() async {
            for await _ in started { return }
        }
    }

    @Test func aFullPoolRefusesAtOnce() async throws {
        let pool = BlockingWorkPool(label: "test", width: 1, capacity: 2)
        let held = HeldJob()
        async let first: Void = pool.run(held.body)
        await held.untilStarted()
        async let second: Void = pool.run { held.gate.wait() }
        while pool.pending < 2 { await Task.yield() }   // the second job waits for the lane: no event says so
        await #expect(throws: BlockingWorkPool.Overloaded.self) { try await pool.run { 1 } }
        held.gate.signal(); held.gate.signal()
        _ = try await (first, second)
        #expect(pool.pending == 0)
        #expect(try await pool.run { 42 } == 42)
    }

    @Test(.timeLimit(.minutes(1))) func aCallerStopsWaitingAtItsLimitWhileTheJobHoldsItsLane() async throws {
        let clock = ManualClock()
        let pool = BlockingWorkPool(label: "test", width: 1, capacity: 1, clock: clock)
        let held = HeldJob()
        let waiting = Task { try await pool.run(within: .seconds(3600), held.body) }
        await held.untilStarted()
        await clock.untilSleeping()
        clock.advance(by: .seconds(3599))
        #expect(clock.sleeping == 1, "a second before its limit the caller still waits")
        clock.advance(by: .seconds(1))
        await #expect(throws: BlockingWorkPool.TooLate.self) { try await waiting.value }
        #expect(pool.pending == 1, "the job still runs on its lane")
        await #expect(throws: BlockingWorkPool.Overloaded.self) { try await pool.run { 1 } }
        held.gate.signal()
        while pool.pending > 0 { await Task.yield() }   // the dropped result: nobody waits for it
        #expect(try await pool.run(within: .seconds(5)) { 7 } == 7)
        #expect(clock.sleeping == 0, "a result within the limit takes its timer off")
    }

    @Test(.timeLimit(.minutes(1))) func aJobGivenUpOnBeforeItsLaneIsFreeNeverRuns() async throws {
        let clock = ManualClock()
        let pool = BlockingWorkPool(label: "test", width: 1, capacity: 2, clock: clock)
        let held = HeldJob()
        let ran = Atomic<Bool>(false)
        async let first: Void = pool.run(held.body)
        await held.untilStarted()
        let late = Task { try await pool.run(within: .milliseconds(50)) { ran.store(true, ordering: .relaxed) } }
        await clock.untilSleeping()
        clock.advance(by: .milliseconds(50))
        await #expect(throws: BlockingWorkPool.TooLate.self) { try await late.value }
        held.gate.signal()
        try await first
        while pool.pending > 0 { await Task.yield() }
        let lateJobRan = ran.load(ordering: .relaxed)
        #expect(!lateJobRan, "the late job ran after its caller had gone")
    }

    @Test(.timeLimit(.minutes(1))) func aCancelledCallerStopsWaitingAndItsQueuedJobNeverRuns() async throws {
        let pool = BlockingWorkPool(label: "test", width: 1, capacity: 2)
        let held = HeldJob()
        let ran = Atomic<Bool>(false)
        async let first: Void = pool.run(held.body)
        await held.untilStarted()
        let queued = Task { try await pool.run { ran.store(true, ordering: .relaxed) } }
        while pool.pending < 2 { await Task.yield() }
        queued.cancel()
        await #expect(throws: CancellationError.self) { try await queued.value }
        held.gate.signal()
        try await first
        while pool.pending > 0 { await Task.yield() }
        let queuedJobRan = ran.load(ordering: .relaxed)
        #expect(!queuedJobRan, "the cancelled caller's job ran")
    }

    /// A lane that comes free takes the jobs a live call waits for before one submitted
    /// `.whenIdle` (a call's last words after its hang-up), whatever their order of arrival.
    @Test(.timeLimit(.minutes(1))) func aLaneTakesWhatALiveCallWaitsForBeforeWorkThatCanWait() async throws {
        let pool = BlockingWorkPool(label: "test", width: 1, capacity: 4)
        let held = HeldJob()
        let order = Locked<[String]>([])
        async let first: Void = pool.run(held.body)
        await held.untilStarted()
        let idle = Task { try await BlockingWorkPool.$urgency.withValue(.whenIdle) { try await pool.run { order.withLock { $0.append("last words") } } } }
        while pool.pending < 2 { await Task.yield() }   // queued behind the held job: no event says so
        let live = Task { try await pool.run { order.withLock { $0.append("live") } } }
        while pool.pending < 3 { await Task.yield() }
        held.gate.signal()
        try await first
        try await live.value
        try await idle.value
        #expect(order.value == ["live", "last words"])
        #expect(pool.pending == 0)
    }

    /// A job wanted within a slack (a reply's next clause) waits behind one a caller waits for
    /// now, until its slack is spent; then it goes before the jobs submitted after that. Time is
    /// the pool's `ManualClock`, moved by the test.
    @Test(.timeLimit(.minutes(1))) func aJobWithSlackYieldsToWaitingCallersUntilItIsDue() async throws {
        let clock = ManualClock()
        let pool = BlockingWorkPool(label: "test", width: 1, capacity: 8, clock: clock)
        let held = HeldJob()
        let order = Locked<[String]>([])
        func submit(_ name: String, _ urgency: BlockingWorkPool.Urgency) async -> Task<Void, any Error> {
            let queued = pool.pending
            let task = Task { try await BlockingWorkPool.$urgency.withValue(urgency) { try await pool.run { order.withLock { $0.append(name) } } } }
            while pool.pending == queued { await Task.yield() }   // queued behind the held job: no event says so
            return task
        }
        async let first: Void = pool.run(held.body)
        await held.untilStarted()
        let nextClause = await submit("next clause", .within(.seconds(2)))
        let waitingCaller = await submit("caller waiting", .now)
        clock.advance(by: .seconds(3))
        let laterCaller = await submit("later caller", .now)
        let overdue = await submit("overdue clause", .within(.seconds(-1)))
        held.gate.signal()
        try await first
        for task in [nextClause, waitingCaller, laterCaller, overdue] { try await task.value }
        #expect(order.value == ["caller waiting", "next clause", "later caller", "overdue clause"])
    }
}
