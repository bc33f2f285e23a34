import Foundation
import Testing
import TestSupport
@testable import Realtime

/// Speech over the cascade agent, judged by Deepgram's words, against the fake servers; the test
/// marks each overlap where the session's VAD would (`callerSpeaksOverAgent`).
@Suite(.serialized) struct CascadeOverlapTests {
    typealias Step = FakeCascadeServers.DeepgramStep

    @Test func aBackchannelIsNoTurnWordsCutAtTheirInterimAndAnUnheardSoundResumes() async throws {
        let log = FakeCascadeServers.Log()
        let verdicts = Locked<[(OverlapVerdict, ContinuousClock.Instant)]>([])
        let lines = Locked<[String]>([])
        let chat: @Sendable (Int) -> (chunks: [String], delay: Duration) = { n in
            (FakeCascadeServers.sse([FakeCascadeServers.content(n == 0 ? "Hello, can you attend on Thursday?" : "Of course, go ahead.")]) + ["data: [DONE]\n\n"], .milliseconds(20))
        }
        let steps = [Step(afterAudio: .milliseconds(1000), [Step.speechStarted, Step.results("Mm-hmm.", isFinal: true, speechFinal: true)]),
                     Step(afterAudio: .milliseconds(2000), [Step.speechStarted, Step.results("wait I have", isFinal: false)]),
                     Step(afterAudio: .milliseconds(2400), [Step.results("Wait, I have a question.", isFinal: true, speechFinal: true)])]
        try await FakeCascadeServers.withFakeServers(log, chat: chat, deepgram: steps) { port in
            let engine = CascadeEngine(context: EarlyReplyProbe.context, settings: CascadeEngineTests.settings(port: port, deepgram: true))
            #expect(engine.judgeOverlaps { verdict in verdicts.withLock { $0.append((verdict, .now)) } })
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                group.addTask {
                    while let event = await engine.nextEvent() {
                        if case .transcript(let speaker, let text, _) = event { lines.withLock { $0.append("\(speaker.rawValue): \(text)") } }
                    }
                }
                for n in 0..<260 {
                    // Over the agent at 0.8 s and 1.8 s (heard), and at 3.0 s a sound Deepgram never hears.
                    if [40, 90, 150].contains(n) { engine.callerSpeaksOverAgent() }
                    await engine.send(muLaw: [UInt8](repeating: 0xFF, count: 160), speech: n == 160 ? .ended : .silence)
                    try await Task.sleep(for: .milliseconds(20))
                }
                _ = await engine.stop()
                group.cancelAll()
            }
        }
        #expect(verdicts.value.map(\.0) == [.backchannel("Mm-hmm."), .interruption, .noWords], "\(verdicts.value.map(\.0))")
        #expect(lines.value == ["ai: Hello, can you attend on Thursday?", "customer: Wait, I have a question.", "ai: Of course, go ahead."], "\(lines.value)")
        #expect(!log.chatBodies.value.contains { $0.contains("Mm-hmm") }, "a backchannel asks the model for nothing")
        let final = try #require(log.entries.value.first { $0.what.contains("Wait, I have a question.") }?.at)
        if verdicts.value.count > 1 { #expect(verdicts.value[1].1 < final, "the interim's words cut the agent before the final result") }
    }
}
