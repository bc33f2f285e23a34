import NIOCore
import Pipeline
import Synchronization

extension PacerScheduler {
    /// Ticks on `loop`'s own timers until cancelled: every tick runs in the event loop that owns
    /// the media sockets, at most one loop iteration after its deadline. (A timer in the shared
    /// task pool and a hop to the loop goes late whenever the pool is busy with calls' tasks.)
    public func run(on loop: any EventLoop) async {
        let stopped = Atomic<Bool>(false)
        let clock = ContinuousClock()
        loop.execute {
            let schedule = NIOLoopBoundBox(TickSchedule(clock: clock), eventLoop: loop)
            /// Schedules the next tick on the loop's timer.
            @Sendable func armNextTick() {
                let deadline = schedule.value.nextDeadline()
                let wait = max(.zero, clock.now.duration(to: deadline))
                loop.scheduleTask(in: .nanoseconds(Int64(wait.totalNanoseconds))) { fire(at: deadline) }
            }
            @Sendable func fire(at deadline: ContinuousClock.Instant) {
                guard !stopped.load(ordering: .relaxed) else { return }
                schedule.value.ticked(deadline: deadline)
                self.record(schedule.value.statistics)
                self.tickRegistered()
                armNextTick()
            }
            armNextTick()
        }
        // Owned by the caller's task: the ticks stop when it is cancelled.
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
        stopped.store(true, ordering: .relaxed)
    }
}
