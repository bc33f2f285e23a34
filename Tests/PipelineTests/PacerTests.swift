import Testing
@testable import Pipeline

/// The pacer ticked by hand or on a `SimulatedClock` (seeded): no wall clock is read, so it runs in
/// the shared pass.
@Suite struct PacerTests {
    typealias Entry = PacedEntry<Int>

    static func makePacer(capacity: Int = 4000) -> Pacer<Int> {
        Pacer(input: BoundedQueue<Entry>(capacity: capacity, policy: .suspendProducer))
    }

    static func queue(_ pacer: Pacer<Int>, frames: Range<Int>, item: String) async {
        for n in frames {
            await pacer.input.send(.audio(n, item: item))
            pacer.playback.queued(item: item, milliseconds: 20)
        }
    }

    @Test func sendsNothingWhenNothingIsQueued() {
        let pacer = Self.makePacer()
        var outputs: [PacerOutput<Int>] = []
        for _ in 0..<5 { pacer.tick { outputs.append($0) } }
        #expect(outputs.isEmpty)
        #expect(pacer.statistics.ticks == 5 && pacer.statistics.framesSent == 0)
    }

    @Test func oneFramePerTickAndMarksPassAfterTheirFrames() async {
        let pacer = Self.makePacer()
        await Self.queue(pacer, frames: 0..<2, item: "a")
        await pacer.input.send(.mark("a-done"))
        await Self.queue(pacer, frames: 2..<3, item: "b")
        await pacer.input.send(.mark("b-done"))
        var log: [String] = []
        for tick in 0..<5 {
            pacer.tick { output in
                switch output {
                case .audio(let n, let item): log.append("\(tick):audio \(n) \(item)")
                case .mark(let name): log.append("\(tick):mark \(name)")
                }
            }
        }
        // The mark after frame 1 passes on the tick after frame 1 was sent (it has then played).
        #expect(log == ["0:audio 0 a", "1:audio 1 a", "2:mark a-done", "2:audio 2 b", "3:mark b-done"])
        #expect(pacer.playback.playedMilliseconds(item: "a") == 40)
        #expect(pacer.playback.playedMilliseconds(item: "b") == 20)
        #expect(!pacer.playback.snapshot.isPlaying)
    }

    /// Played and generated time per item survive switching between items (the current item's
    /// counts are kept apart from the rest while it plays).
    @Test func playbackCountsSurviveSwitchingItems() {
        let tracker = PlaybackTracker()
        tracker.queued(item: "a", milliseconds: 60)
        tracker.played(item: "a", milliseconds: 20)
        tracker.queued(item: "b", milliseconds: 40)
        tracker.played(item: "a", milliseconds: 40)   // a's tail plays while b is current
        tracker.played(item: "b", milliseconds: 20)
        #expect(tracker.snapshot == PlaybackTracker.Snapshot(currentItem: "b", currentItemPlayedMilliseconds: 20,
                                                             currentItemGeneratedMilliseconds: 40, pendingMilliseconds: 20))
        tracker.queued(item: "a", milliseconds: 20)   // back to a: its earlier counts are still there
        #expect(tracker.snapshot.currentItemPlayedMilliseconds == 60)
        #expect(tracker.snapshot.currentItemGeneratedMilliseconds == 80)
        #expect(tracker.playedMilliseconds(item: "a") == 60)
        #expect(tracker.playedMilliseconds(item: "b") == 20)
        #expect(tracker.playedMilliseconds(item: "never") == 0)
    }

    @Test func anInterruptOvertakesOneSecondOfQueuedAudioWithinOneTick() async {
        let pacer = Self.makePacer()
        await Self.queue(pacer, frames: 0..<50, item: "long")   // 1 s of agent audio
        var sent: [Int] = []
        pacer.tick { if case .audio(let n, _) = $0 { sent.append(n) } }
        #expect(pacer.playback.snapshot.isPlaying)
        pacer.input.sendControl(.interrupt)
        pacer.tick { if case .audio(let n, _) = $0 { sent.append(n) } }
        #expect(sent == [0], "nothing queued before the interrupt is played after it")
        #expect(pacer.input.counters.flushed == 49)
        #expect(!pacer.playback.snapshot.isPlaying)
        await Self.queue(pacer, frames: 100..<101, item: "next")
        pacer.tick { if case .audio(let n, _) = $0 { sent.append(n) } }
        #expect(sent == [0, 100], "new audio after the interrupt plays at once")
    }

    /// Over 60 simulated seconds, with every wake-up up to 0.5 ms late and 0.3 ms of work per
    /// tick, the absolute schedule keeps the 3000th frame within 1 ms of where it belongs.
    @Test func driftStaysUnderOneMillisecondOverSixtySimulatedSeconds() async {
        let clock = SimulatedClock(maxOversleep: .microseconds(500))
        let pacer = Self.makePacer()
        await Self.queue(pacer, frames: 0..<3000, item: "long")
        pacer.input.finish()
        var sendTimes: [Duration] = []
        await pacer.run(clock: clock) { _ in
            sendTimes.append(clock.now.offset)
            clock.advance(by: .microseconds(300))
        }
        #expect(sendTimes.count == 3000)
        let drift = (sendTimes[2999] - sendTimes[0]) - Pacer<Int>.interval * 2999
        #expect(abs(drift.milliseconds) < 1, "drift \(drift.milliseconds) ms")
        #expect(pacer.statistics.lateTicks == 0 && pacer.statistics.reanchors == 0)

        // The same conditions with sleep(20 ms) in a loop drift by the sum of every delay.
        let naiveClock = SimulatedClock(maxOversleep: .microseconds(500))
        let naiveStart = naiveClock.now
        for _ in 0..<2999 {
            try? await naiveClock.sleep(until: naiveClock.now.advanced(by: .milliseconds(20)), tolerance: nil)
            naiveClock.advance(by: .microseconds(300))
        }
        let naiveDrift = naiveStart.duration(to: naiveClock.now) - Pacer<Int>.interval * 2999
        #expect(naiveDrift.milliseconds > 500, "the comparison shows what the absolute schedule prevents")
    }

    @Test func aLongStallReanchorsInsteadOfBursting() async {
        let clock = SimulatedClock()
        let pacer = Self.makePacer()
        await Self.queue(pacer, frames: 0..<20, item: "x")
        pacer.input.finish()
        var times: [Double] = []
        await pacer.run(clock: clock) { output in
            times.append(clock.now.offset.milliseconds)
            if case .audio(5, _) = output { clock.advance(by: .milliseconds(500)) }  // the process stalls
        }
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(times.count == 20)
        #expect(gaps.filter { $0 < 19 }.isEmpty, "no burst of back-to-back frames after the stall: \(gaps)")
        #expect(pacer.statistics.reanchors == 1)
    }

    @Test func anEndControlStopsTheRunLoop() async {
        let clock = SimulatedClock()
        let pacer = Self.makePacer()
        await Self.queue(pacer, frames: 0..<10, item: "x")
        pacer.input.sendControl(.end)
        var count = 0
        await pacer.run(clock: clock) { _ in count += 1 }
        #expect(count == 0, "end overtakes the queued audio")
    }
}
