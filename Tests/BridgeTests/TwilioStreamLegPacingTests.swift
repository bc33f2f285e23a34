import Bridge
import Foundation
import Logging
import NIOCore
import Pipeline
import Synchronization
import Testing

/// How a Twilio leg puts its paced audio on the socket, tick by tick on a scheduler the test
/// drives by hand: three 20 ms `media` messages per write, every third tick, streams taking the
/// ticks in turn; the mark after the audio it follows.
@Suite struct TwilioStreamLegPacingTests {
    /// What one leg's socket was handed, per tick.
    final class Writes: Sendable {
        let byTick = Mutex<[Int: [String]]>([:])
        let tick = Atomic<Int>(0)

        func socket() -> TwilioStreamLeg.Socket {
            .init(send: { messages in
                let texts = messages.map { String(buffer: $0.text) }
                self.byTick.withLock { $0[self.tick.load(ordering: .relaxed), default: []] += texts }
            }, close: {})
        }
    }

    @Test func threeFramesPerWriteEveryThirdTickStreamsInTurn() async throws {
        let scheduler = PacerScheduler<[UInt8]>()
        let writes = [Writes(), Writes()]
        let legs = writes.map { TwilioStreamLeg(scheduler: scheduler, logger: Logger(label: "test"), socket: $0.socket()) }
        var running: [Task<Void, Never>] = []
        for (n, leg) in legs.enumerated() {
            leg.receive(#"{"event":"start","start":{"streamSid":"MZ\#(n)","callSid":"CA\#(n)"},"streamSid":"MZ\#(n)"}"#)
            running.append(Task { await leg.run() })
            while scheduler.registeredCount < n + 1 { try await Task.sleep(for: .milliseconds(5)) }
            // 200 ms of audio (ten frames), then a mark.
            await leg.send(.media([UInt8](repeating: UInt8(n), count: 1600)))
            await leg.send(.mark("done-\(n)"))
        }
        for t in 1...14 {
            for w in writes { w.tick.store(t, ordering: .relaxed) }
            scheduler.tickRegistered()
        }

        #expect(TwilioStreamLeg.framesPerWrite == 3)
        var writeTicks: [[Int]] = []
        for (n, w) in writes.enumerated() {
            let byTick = w.byTick.withLock { $0 }
            let ticks = byTick.keys.sorted()
            writeTicks.append(ticks)
            #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $1 - $0 == 3 }, "stream \(n) writes every third tick: \(ticks)")
            let media = ticks.map { byTick[$0]!.filter { $0.contains(#""event":"media""#) }.count }
            #expect(media == [3, 3, 3, 1], "stream \(n): ten frames, three per write: \(media)")
            let all = ticks.flatMap { byTick[$0]! }
            #expect(all.last?.contains(#""name":"done-\#(n)""#) == true && all.filter { $0.contains(#""event":"mark""#) }.count == 1,
                    "stream \(n): one mark, after all its audio")
        }
        #expect(Set(writeTicks.map { $0.first! % 3 }).count == 2, "the two streams write on different ticks: \(writeTicks)")

        for leg in legs { leg.finish() }
        for task in running { await task.value }
    }
}
