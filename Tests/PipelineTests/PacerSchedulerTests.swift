import Synchronization
import Testing
@testable import Pipeline

/// The scheduler on a `SimulatedClock` (seeded) or ticked by hand: no wall clock is read, so it runs
/// in the shared pass.
@Suite struct PacerSchedulerTests {
    final class Log: Sendable {
        let entries = Mutex<[String]>([])
        func add(_ s: String) { entries.withLock { $0.append(s) } }
        var all: [String] { entries.withLock { $0 } }
    }

    @Test func oneTimerTicksEveryRegisteredPacerOncePerInterval() async {
        let clock = SimulatedClock(maxOversleep: .microseconds(300))
        let scheduler = PacerScheduler<Int>()
        let log = Log()
        var pacers: [Pacer<Int>] = []
        for name in ["a", "b", "c"] {
            let pacer = Pacer<Int>(input: BoundedQueue(capacity: 100, policy: .suspendProducer))
            for n in 0..<10 { await pacer.input.send(.audio(n, item: name)) }
            pacer.input.finish()
            scheduler.register(pacer) { output in
                if case .audio(let n, let item) = output { log.add("\(item)\(n)@\(Int(clock.now.offset.milliseconds / 20))") }
            }
            pacers.append(pacer)
        }
        let task = Task { await scheduler.run(clock: clock) }
        while scheduler.registeredCount > 0 { await Task.yield() }
        task.cancel()
        await task.value
        // Every pacer sent frame n on tick n; finished pacers were dropped from the scheduler.
        for name in ["a", "b", "c"] {
            #expect(log.all.filter { $0.hasPrefix(name) } == (0..<10).map { "\(name)\($0)@\($0)" })
        }
        #expect(scheduler.statistics.lateTicks == 0)
        #expect(pacers.allSatisfy { $0.isDone })
    }

    /// A tick 10–40 ms late is late (a whole interval's half) but hidden by a 40 ms playout buffer;
    /// one later than that is counted as audibly late too, each for every registered leg.
    @Test func lateAndAudiblyLateTicksAreCountedPerLeg() {
        let clock = SimulatedClock()
        let scheduler = PacerScheduler<Int>()
        for _ in 0..<3 { scheduler.register(ticker: { true }) }
        var schedule = TickSchedule(clock: clock)
        for lateness in [0, 5, 25, 45] {
            let deadline = schedule.nextDeadline()
            clock.advance(by: max(.zero, clock.now.duration(to: deadline)) + .milliseconds(lateness))
            schedule.ticked(deadline: deadline)
            scheduler.record(schedule.statistics)
            scheduler.tickRegistered()
        }
        let stats = scheduler.statistics
        #expect(stats.ticks == 4 && stats.lateTicks == 2 && stats.audiblyLateTicks == 1)
        #expect(stats.lateFrames == 6 && stats.audiblyLateFrames == 3, "three legs: \(stats)")
        #expect(stats.reanchors == 0)
    }

    @Test func unregisteringStopsAPacerAtOnce() async {
        let clock = SimulatedClock()
        let scheduler = PacerScheduler<Int>()
        let pacer = Pacer<Int>(input: BoundedQueue(capacity: 100, policy: .suspendProducer))
        for n in 0..<50 { await pacer.input.send(.audio(n, item: "x")) }
        let sent = Log()
        let id = scheduler.register(pacer) { _ in sent.add("x") }
        scheduler.unregister(id)
        let task = Task { await scheduler.run(clock: clock) }
        while clock.sleeps < 5 { await Task.yield() }
        task.cancel()
        await task.value
        #expect(sent.all.isEmpty)
    }
}
