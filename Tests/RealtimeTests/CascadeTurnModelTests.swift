import Foundation
import Pipeline
import Testing
import TestLanes
import TestSupport
@testable import Realtime

/// `engine.turn_detection: model` in the cascade engine, against the fake servers: the caller's
/// speech is real (espeak-ng over the phone line, our VAD deciding), and the fake Deepgram calls an
/// utterance over 300 ms after each of its speech ends, as its endpointing does. Smart Turn holds a
/// line cut at a mid-sentence pause and the next utterance joins it; the pause rule (Deepgram's
/// endpointing alone) makes it two turns. The caller talks in real time: the model is given 10 s to
/// answer (below), the fake Deepgram answers by audio time, and the caller stops once the engine
/// has taken its turns — yet beside two busy loops and four unit tests at once (4 Dec) a line cut
/// mid-sentence was taken as a turn, for a reason not found, so it runs with the real-time calls.
@Suite(.serialized, .tags(.realTimeCalls)) struct CascadeTurnModelTests {
    typealias Step = FakeCascadeServers.DeepgramStep

    /// 20 ms μ-law frames of `ssml` as a phone line carries it, with 1 s of silence before and 30 s
    /// after, each with our VAD's verdict; and when each stretch of speech ended (audio time). The
    /// silence after outlasts two verdicts awaited for the whole ceiling below (one per half): with
    /// 12 s, beside busy loops (4 Dec), it ran out before any turn was taken.
    static func caller(_ ssml: String) async throws -> (frames: [([UInt8], SpeechActivity)], speechEnds: [Duration]) {
        let down = try Resampler(from: EspeakSynthesizer.sampleRate, to: 8000)
        let line = down.process(try await EspeakCLI.say(ssml: ssml)) + down.flush()
        var chunker = FrameChunker(sampleRate: 8000)
        var vad = VoiceActivityDetector()
        var frames: [([UInt8], SpeechActivity)] = [], ends: [Duration] = []
        for frame in chunker.push([Int16](repeating: 0, count: 8000) + line + [Int16](repeating: 0, count: 240_000)) {
            let decision = vad.process(frame)
            frames.append((G711.encode(frame.samples, law: .muLaw), LocalEngineTests.activity(decision)))
            if decision.event == .speechEnded { ends.append(.milliseconds(20 * frames.count)) }
        }
        return (frames, ends)
    }

    /// The caller's turns as the engine took them, with `turns` judging: Deepgram sends `parts[i]`
    /// as a finished utterance 300 ms after the i-th speech end. The caller falls silent once its
    /// speech is out and the engine has taken `expected` turns (or its 30 s of silence are out).
    static func turns(_ ssml: String, parts: [String], judged turns: TurnDetector, expected: Int) async throws -> [String] {
        let (frames, ends) = try await caller(ssml)
        try #require(ends.count == parts.count, "the VAD heard \(ends.count) stretches of speech")
        let steps = zip(ends, parts).map { end, words in Step(afterAudio: end + .milliseconds(300), [Step.results(words, isFinal: true, speechFinal: true)]) }
        let log = FakeCascadeServers.Log(), heard = Locked<[String]>([])
        let chat: @Sendable (Int) -> (chunks: [String], delay: Duration) = { _ in
            (FakeCascadeServers.sse([FakeCascadeServers.content("Thank you.")]) + ["data: [DONE]\n\n"], .milliseconds(20))
        }
        try await FakeCascadeServers.withFakeServers(log, chat: chat, deepgram: steps) { port in
            let base = "127.0.0.1:\(port)/v1"
            var settings = CascadeEngine.Settings(stt: .deepgram(baseURL: "ws://" + base, apiKey: "dg-key", model: "nova-3"), llmBaseURL: "http://" + base,
                                                  llmAPIKey: "llm-key", llmModel: "test-model", audioBaseURL: "http://" + base, audioAPIKey: "audio-key")
            settings.earlyReplies = false
            settings.turns = turns
            let engine = CascadeEngine(context: EarlyReplyProbe.context, settings: settings)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                group.addTask {
                    while let event = await engine.nextEvent() {
                        if case .transcript(.customer, let text, _) = event { heard.withLock { $0.append(text) } }
                    }
                }
                let clock = ContinuousClock()
                var next = clock.now
                let speechOut = ends.last.map { Int($0 / .milliseconds(20)) } ?? 0
                for (index, (muLaw, activity)) in frames.enumerated() {   // in real time, as a call's caller side sends it
                    if index >= speechOut, heard.value.count >= expected { break }
                    await engine.send(muLaw: muLaw, speech: activity)
                    next = next.advanced(by: .milliseconds(20))
                    try await clock.sleep(until: next)
                }
                _ = await engine.stop()
                group.cancelAll()
            }
        }
        return heard.value
    }

    @Test(.enabled(if: TurnDetectionTests.model != nil)) func theModelHoldsALineCutMidSentenceAndTheNextUtteranceJoinsIt() async throws {
        let model = try #require(TurnDetectionTests.model)
        let line = #"I'm not sure yet, I need to check with <break time="1200ms"/> my wife."#
        let parts = ["I'm not sure yet, I need to check with", "my wife."]
        // The ceiling is also how long a verdict is awaited before the pause rule decides alone:
        // the product's 2 s (the default) held here, but beside two busy loops a debug build's
        // verdict once came later (3 Dec) and the pause rule answered the half sentence. This test
        // asks what the model decides, not how fast — that is `make bench`'s `turns` figure.
        let byModel = try await Self.turns(line, parts: parts, judged: TurnDetector(model: model, threshold: 0.8, ceilingMilliseconds: 10_000), expected: 1)
        #expect(byModel == ["I'm not sure yet, I need to check with my wife."], "one turn, both halves: \(byModel)")
        let byPause = try await Self.turns(line, parts: parts, judged: .pause, expected: parts.count)
        #expect(byPause == parts, "Deepgram's endpointing alone answers the half sentence: \(byPause)")
    }
}
