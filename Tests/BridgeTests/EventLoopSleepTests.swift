import Bridge
import Testing
import TestLanes
import TestSupport

/// `Task.sleepOnEventLoop`: the timer a call arms for its maximum duration (and its ring and
/// transfer timeouts) and nearly always cancels. With `Task.sleep` each cancelled timer held its
/// task (≈ 740 bytes) until the deadline — an hour's limit at 400 calls a minute is 18 MB — which
/// the soak showed as memory growing for as long as the limit. A timed suite in make test: it
/// counts the allocator's bytes, which other tests running beside it would move.
@Suite(.serialized, .tags(.timed)) struct EventLoopSleepTests {
    @Test func cancelledSleepsGiveTheirMemoryBack() async throws {
        func sleepAndCancel(_ count: Int) async {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<count { group.addTask { try? await Task.sleepOnEventLoop(for: .seconds(3600)) } }
                try? await Task.sleep(for: .milliseconds(100))   // every one of them asleep
                group.cancelAll()
            }
        }
        // Warm-up: the loops' timer queues grow to hold 20,000, and keep that capacity.
        await sleepAndCancel(20_000)
        let before = AllocatorUsage.bytesInUse()
        await sleepAndCancel(20_000)
        let grown = AllocatorUsage.bytesInUse() - before
        // With Task.sleep: 14.7 MB, held for the hour. With NIO's timers: nothing in a release
        // build; about 4.6 MB in a debug one, NIO's debug-only record of each promise's creator.
        #expect(grown < 8_000_000, "20,000 cancelled one-hour sleeps still hold \(grown / 1024) KB")
    }

    @Test func aSleepEndsAtItsDeadlineAndACancelledOneAtOnce() async throws {
        let clock = ContinuousClock()
        let slept = try await clock.measure { try await Task.sleepOnEventLoop(for: .milliseconds(50)) }
        #expect(slept >= .milliseconds(50) && slept < .seconds(1), "slept \(slept)")

        let sleeper = Task { try await Task.sleepOnEventLoop(for: .seconds(3600)) }
        let start = clock.now
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(start.duration(to: clock.now) < .seconds(1))
    }
}
