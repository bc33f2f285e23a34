import NIOCore
import NIOPosix
import Pipeline
import Synchronization
import Testing
import TestLanes
@testable import Bridge

/// The media tick driven by an event loop's own timers: ticks on the 20 ms grid, run on that
/// loop, and stop when the owning task is cancelled.
@Suite(.tags(.timed)) struct PacerSchedulerEventLoopTests {
    @Test func ticksOnTheLoopEvery20msUntilCancelled() async throws {
        // A loop of its own: other suites' work on the shared loops must not skew the count.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let scheduler = PacerScheduler<[UInt8]>()
        let ticks = Atomic<Int>(0)
        let offLoop = Atomic<Int>(0)
        scheduler.register {
            if !loop.inEventLoop { offLoop.add(1, ordering: .relaxed) }
            ticks.add(1, ordering: .relaxed)
            return true
        }
        let driver = Task { await scheduler.run(on: loop) }
        try await Task.sleep(for: .seconds(1))
        driver.cancel()
        await driver.value
        let counted = ticks.load(ordering: .relaxed)
        #expect((45...55).contains(counted), "\(counted) ticks in one second")
        #expect(offLoop.load(ordering: .relaxed) == 0, "every tick ran on the media loop")
        #expect(abs(scheduler.statistics.ticks - counted) <= 1, "the grid's statistics count the same ticks")
        try await Task.sleep(for: .milliseconds(100))
        // A tick already running when the owner was cancelled may finish; none start after it.
        #expect(ticks.load(ordering: .relaxed) <= counted + 1, "no tick after the owner was cancelled")
        try await group.shutdownGracefully()
    }
}
