import Foundation
import Pipeline
import Testing
@testable import Bridge

/// A simulated line (`LineCondition` → `LineBed` → `ImpairedLine`): the noise comes at the ratio
/// asked of the person's voice, the agent's voice comes back at its level after its delay, a clean
/// line changes nothing, and a `MemoryLeg` pair carries the line to the agent's end.
@Suite struct LineConditionTests {
    /// A voice stand-in: a 200 Hz buzz, two bursts of a second at −20 dBFS with a gap between.
    static let voice: [Int16] = (0..<24_000).map { i in
        let on = i < 8000 || i >= 16_000
        return on ? Int16(3277 * 1.414 * sin(2 * Double.pi * 200 * Double(i) / 8000)) : 0
    }


    static let silentFrame = [UInt8](repeating: 0xFF, count: 160)

    @Test func theNoiseComesAtTheRatioAskedOfTheVoice() throws {
        for (noise, snr) in [(LineNoise.pink, 10.0), (.street, 5), (.babble, 15), (.television, 10), (.office, 10)] {
            let bed = try LineBed(condition: try LineCondition(noise: noise, snrDB: snr), voices: [Self.voice, Self.voice.reversed()])
            let line = bed.line(seed: 7)
            // The person silent for the whole 30-s loop of noise.
            let heard = (0..<1500).flatMap { _ in G711.decode(line.heard(Self.silentFrame), law: .muLaw) }
            let measured = 10 * log10(LineBed.voicedPower([Self.voice]) / heard.meanSquare)
            #expect(abs(measured - snr) < 0.6, "\(noise.rawValue): \(measured) dB where \(snr) was asked")
        }
    }

    @Test func theSameSeedGivesTheSameNoiseAndAnotherSeedStartsElsewhere() throws {
        let bed = try LineBed(condition: try LineCondition(noise: .babble, snrDB: 10), voices: [Self.voice])
        let a = bed.line(seed: 1), b = bed.line(seed: 1), c = bed.line(seed: 2)
        let heard = (0..<25).map { _ in [a.heard(Self.silentFrame), b.heard(Self.silentFrame), c.heard(Self.silentFrame)] }
        #expect(heard.allSatisfy { $0[0] == $0[1] } && !heard.allSatisfy { $0[0] == $0[2] })
    }

    @Test func theAgentsVoiceComesBackAtItsLevelAfterItsDelay() throws {
        let line = try LineBed(condition: try LineCondition(echoDB: -10, echoDelayMilliseconds: 150), voices: []).line(seed: 0)
        let sent = Array(Self.voice.prefix(8000))
        var heard: [Int16] = []
        for n in 0..<60 {
            // The agent's end ticks first in one frame, the person's first in the next: the order within a tick does not move the echo.
            let frame = n < 50 ? G711.encode(Array(sent[n * 160..<(n + 1) * 160]), law: .muLaw) : Self.silentFrame
            if n.isMultiple(of: 2) {
                line.sent(frame)
                heard += G711.decode(line.heard(Self.silentFrame), law: .muLaw)
            } else {
                heard += G711.decode(line.heard(Self.silentFrame), law: .muLaw)
                line.sent(frame)
            }
        }
        let onset = try #require(heard.firstIndex { abs($0) > 100 })
        #expect((1190...1210).contains(onset), "the echo starts at sample \(onset), 1,200 (150 ms) expected")
        let level = 10 * log10(heard[1600..<8000].meanSquare / sent[400..<6800].meanSquare)
        #expect(abs(level + 10) < 0.5, "the echo at \(level) dB, −10 asked")
    }

    @Test func aCleanLineChangesNothing() throws {
        let line = try LineBed(condition: try LineCondition(), voices: []).line(seed: 0)
        let frame = G711.encode(Array(Self.voice.prefix(160)), law: .muLaw)
        line.sent(frame)
        #expect(line.heard(frame) == frame && line.heard(Self.silentFrame) == Self.silentFrame)
    }

    @Test func aConditionOutOfItsRangeNamesTheField() {
        #expect(throws: LineCondition.Problem(field: "snr_db", message: "must be -5 to 40")) { try LineCondition(noise: .pink, snrDB: 41) }
        #expect(throws: LineCondition.Problem.self) { try LineCondition(echoDB: 3) }
        #expect(throws: LineCondition.Problem.self) { try LineCondition(echoDB: -10, echoDelayMilliseconds: 1001) }
        #expect(throws: LineCondition.Problem.self) { try LineCondition.noise(named: "jackhammer") }
        #expect((try? LineCondition(noise: .babble, snrDB: 10, echoDB: -10))?.description == "babble at 10 dB, echo at -10 dB after 150 ms")
        #expect(throws: (any Error).self) { try LineBed(condition: try LineCondition(noise: .babble), voices: []) }
    }

    /// Through a `MemoryLeg` pair in virtual time: the agent's end hears its own greeting come back
    /// while the person says nothing, and the person's end hears the agent clean.
    @Test func aMemoryLegPairCarriesTheLineToTheAgentsEnd() async throws {
        let executor = VirtualTimeExecutor()
        let clock = CallClock(virtualTime: executor)
        let scheduler = PacerScheduler<[UInt8]>()
        let line = try LineBed(condition: try LineCondition(echoDB: -6, echoDelayMilliseconds: 100), voices: []).line(seed: 0)
        let greeting = G711.encode(Array(Self.voice.prefix(8000)), law: .muLaw)
        let (heardByAgent, heardByPerson) = try await executor.run {
            try await withThrowingTaskGroup(of: [Int16]?.self) { group in
                group.addTask { await scheduler.run(clock: clock); return nil }
                let (agent, person) = MemoryLeg.pair(scheduler: scheduler, clock: clock, caller: MediaStreamStart(streamSid: "MZa", callSid: "CA1"),
                                                     callee: MediaStreamStart(streamSid: "MZp", callSid: "CA1"), impairment: line)
                let collect = { (leg: MemoryLeg) in
                    { () async -> [Int16]? in
                        var samples: [Int16] = []
                        for await event in leg.events { if case .media(let media) = event { samples += G711.decode(media.payload, law: .muLaw) } }
                        return samples
                    }
                }
                group.addTask { await agent.run(); return nil }
                group.addTask { await person.run(); return nil }
                group.addTask(operation: collect(agent))
                group.addTask(operation: collect(person))
                await agent.send(.media(greeting))
                try await clock.sleep(for: .seconds(2))
                await agent.hangUp()
                var heard: [[Int16]] = []
                while heard.count < 2, let next = try await group.next() { if let next { heard.append(next) } }
                group.cancelAll()
                // Which collector ended first is not known: the agent's is the one with the quieter copy.
                let sorted = heard.sorted { $0.meanSquare < $1.meanSquare }
                return (sorted[0], sorted[1])
            }
        }
        let level = 10 * log10(heardByAgent.meanSquare / heardByPerson.meanSquare)
        #expect(abs(level + 6) < 0.5, "the agent hears itself at \(level) dB, −6 asked")
        let agentOnset = try #require(heardByAgent.firstIndex { abs($0) > 100 }), personOnset = try #require(heardByPerson.firstIndex { abs($0) > 100 })
        #expect(agentOnset - personOnset == 800, "100 ms later than the person hears it: \(agentOnset - personOnset) samples")
    }
}
