import Bridge
import Foundation
import Logging
import NIOCore
import Pipeline
import Synchronization
import Testing

/// How a Twilio leg puts its paced audio on the socket, tick by tick on a scheduler the test
/// drives by hand: a write every third tick, streams taking the ticks in turn, with as many
/// frames as keep Twilio's buffer (simulated here: it plays one frame a tick) at 40–100 ms; the
/// mark after the audio it follows; after a `clear`, the buffer is refilled from empty. No clock
/// is read, so it runs in the shared pass.
@Suite struct MediaStreamSocketLegPacingTests {
    /// What one leg's socket was handed, per tick.
    final class Writes: Sendable {
        let byTick = Mutex<[Int: [String]]>([:])
        let tick = Atomic<Int>(0)

        func socket() -> MediaStreamSocketLeg.Socket {
            .init(send: { messages in
                let texts = messages.map { String(buffer: $0.text) }
                self.byTick.withLock { $0[self.tick.load(ordering: .relaxed), default: []] += texts }
            }, close: {})
        }

        func media(at tick: Int) -> Int { byTick.withLock { ($0[tick] ?? []).filter { $0.contains(#""event":"media""#) }.count } }
    }

    static func start(_ legs: [MediaStreamSocketLeg], on scheduler: PacerScheduler<[UInt8]>) async throws -> [Task<Void, Never>] {
        var running: [Task<Void, Never>] = []
        for (n, leg) in legs.enumerated() {
            leg.receive(#"{"event":"start","start":{"streamSid":"MZ\#(n)","callSid":"CA\#(n)"},"streamSid":"MZ\#(n)"}"#)
            running.append(Task { await leg.run() })
            while scheduler.registeredCount < n + 1 { try await Task.sleep(for: .milliseconds(5)) }
        }
        return running
    }

    static func tick(_ scheduler: PacerScheduler<[UInt8]>, _ writes: [Writes], _ ticks: ClosedRange<Int>) {
        for t in ticks {
            for w in writes { w.tick.store(t, ordering: .relaxed) }
            scheduler.tickRegistered()
        }
    }

    @Test func aWriteEveryThirdTickKeepingTwilio40To100MillisecondsAhead() async throws {
        let scheduler = PacerScheduler<[UInt8]>()
        let writes = [Writes(), Writes()]
        let legs = writes.map { MediaStreamSocketLeg(scheduler: scheduler, logger: Logger(label: "test"), socket: $0.socket()) }
        let running = try await Self.start(legs, on: scheduler)
        for (n, leg) in legs.enumerated() {
            // 400 ms of audio (twenty frames), then a mark.
            await leg.send(.media([UInt8](repeating: UInt8(n), count: 3200)))
            await leg.send(.mark("done-\(n)"))
        }
        Self.tick(scheduler, writes, 1...30)

        var writeTicks: [[Int]] = []
        for (n, w) in writes.enumerated() {
            let byTick = w.byTick.withLock { $0 }
            let ticks = byTick.keys.sorted()
            writeTicks.append(ticks)
            #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $1 - $0 == MediaStreamSocketLeg.framesPerWrite }, "stream \(n) writes every third tick: \(ticks)")
            // The mark after the last three frames goes in the next write (Twilio still holds
            // 40 ms then, so its echo is still on time).
            #expect(ticks.map(w.media) == [5, 3, 3, 3, 3, 3, 0], "stream \(n): five to start, then three a write: \(ticks.map(w.media))")
            // Twilio plays one frame a tick: from the first write until the audio runs out, it
            // holds 2–5 frames after each tick, never more (100 ms), never none (a gap).
            var buffered = 0, sent = 0
            for t in ticks.first!...30 {
                buffered = max(0, buffered - 1) + w.media(at: t)
                sent += w.media(at: t)
                #expect(buffered <= 5, "stream \(n), tick \(t): \(buffered) frames ahead")
                if sent < 20 { #expect(buffered >= 2, "stream \(n), tick \(t): only \(buffered) frames ahead") }
            }
            let all = ticks.flatMap { byTick[$0]! }
            #expect(all.last?.contains(#""name":"done-\#(n)""#) == true && all.filter { $0.contains(#""event":"mark""#) }.count == 1,
                    "stream \(n): one mark, after all its audio")
        }
        #expect(Set(writeTicks.map { $0.first! % 3 }).count == 2, "the two streams write on different ticks: \(writeTicks)")

        for leg in legs { leg.finish() }
        for task in running { await task.value }
    }

    @Test func afterAClearTheBufferIsRefilledFromEmpty() async throws {
        let scheduler = PacerScheduler<[UInt8]>()
        let writes = Writes()
        let leg = MediaStreamSocketLeg(scheduler: scheduler, logger: Logger(label: "test"), socket: writes.socket())
        let running = try await Self.start([leg], on: scheduler)
        await leg.send(.media([UInt8](repeating: 1, count: 3200)))
        Self.tick(scheduler, [writes], 1...3)
        #expect((1...3).map(writes.media) .reduce(0, +) == 5)
        await leg.send(.clear)   // Twilio drops what it holds
        await leg.send(.media([UInt8](repeating: 2, count: 3200)))
        Self.tick(scheduler, [writes], 4...6)
        #expect((4...6).map(writes.media).reduce(0, +) == 5, "a full 100 ms again, not the 3 frames of a buffer thought to hold 40 ms")
        leg.finish()
        for task in running { await task.value }
    }
}
