import Foundation
import Pipeline
import Synchronization
import Testing
import TestSupport
@testable import Realtime

/// The local engine end to end on recorded answers, with the real VAD deciding speech.
@Suite struct LocalEngineTests {
    final class Log: Sendable {
        let events = Mutex<[EngineEvent]>([])
        var all: [EngineEvent] { events.withLock { $0 } }
        var texts: [(Speaker, String)] { all.compactMap { if case .transcript(let s, let t, _) = $0 { (s, t) } else { nil } } }
        func count(_ match: (EngineEvent) -> Bool) -> Int { all.filter(match).count }
    }

    static func waitFor(_ log: Log, timeout: Duration = .seconds(20), _ condition: (Log) -> Bool) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while !condition(log) {
            guard ContinuousClock.now < deadline else { Issue.record("timed out; events: \(log.texts)"); return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Plays a fixture into the engine as the pipeline would: 20 ms frames at 16 kHz, VAD decided.
    static func speak(_ fixture: String, into engine: LocalEngine, vad: inout VoiceActivityDetector) async throws {
        let narrow = try WAVFile.read(Fixtures.audio(fixture)).samples
        let resampler = try Resampler(from: 8000, to: 16000)
        let silence = [Int16](repeating: 0, count: 16000)   // a second: past the end-of-turn window
        let wide = silence + resampler.process(narrow) + resampler.flush() + silence
        var chunker = FrameChunker(sampleRate: 16000)
        for frame in chunker.push(wide) {
            let decision = vad.process(frame)
            let activity: SpeechActivity = switch decision.event {
            case .speechStarted?: .started
            case .speechEnded?: .ended
            case nil: decision.isSpeech ? .speech : .silence
            }
            await engine.send(samples: frame.samples, speech: activity)
        }
    }

    @Test func seed000ScenarioOnRecordedAnswers() async throws {
        let context = ConversationContext(purpose: "tomorrow's 2 pm meeting", questions: ["Can you attend?", "Does the place need to change?"], displayName: "ABC Company")
        let engine = LocalEngine(context: context, tts: try EspeakSynthesizer(), stt: try MoonshineTranscriber(directory: Fixtures.moonshine))
        let log = Log()
        let reader = Task { while let event = await engine.nextEvent() { log.events.withLock { $0.append(event) } } }
        try await engine.start()
        try await Self.waitFor(log) { $0.count { $0 == .audioDone(item: "local-1") } == 1 }
        var vad = VoiceActivityDetector()
        try await Self.speak("en_yes_attend.wav", into: engine, vad: &vad)
        try await Self.waitFor(log) { $0.count { $0 == .audioDone(item: "local-2") } == 1 }
        try await Self.speak("en_no_change.wav", into: engine, vad: &vad)
        try await Self.waitFor(log) { $0.all.contains { if case .endCall = $0 { true } else { false } } }
        let tracker = await engine.stop()
        await reader.value

        let texts = log.texts
        #expect(texts.first?.0 == .ai && texts.first?.1.hasPrefix("Hello, this is the AI assistant of ABC Company") == true)
        #expect(texts.first?.1.hasSuffix("Can you attend?") == true)
        #expect(texts.filter { $0.0 == .customer }.count == 2, "\(texts)")
        #expect(texts.last?.1.hasSuffix("Have a nice day.") == true)
        #expect(tracker.isComplete, "\(tracker.answers)")
        #expect(tracker.answers.map(\.answerSummary) == ["yes", "no"])
        let ends = log.all.compactMap { if case .endCall(let reason, let item) = $0 { "\(reason)|\(item ?? "")" } else { nil } }
        #expect(ends == ["conversation finished|local-3"])
        let audio = log.all.reduce(0) { if case .audio(_, let s) = $1 { $0 + s.count } else { $0 } }
        #expect(audio > EspeakSynthesizer.sampleRate * 5, "the agent actually spoke")
    }

    @Test func echoEngineRepeatsEachUtteranceWhenItEnds() async throws {
        let engine = EchoEngine(sampleRate: 10, maxUtteranceSeconds: 1)
        try await engine.start()
        await engine.send(samples: [8], speech: .silence)
        await engine.send(samples: [9], speech: .silence)
        await engine.send(samples: [1, 2], speech: .started)
        await engine.send(samples: [3], speech: .speech)
        #expect(engine.events.count == 0, "nothing is played while the caller is still talking")
        await engine.send(samples: [4], speech: .ended)
        await engine.send(samples: [0], speech: .silence)
        // A long utterance is played in pieces of at most maxUtteranceSeconds (memory stays bounded).
        await engine.send(samples: Array(repeating: 5, count: 6), speech: .started)
        await engine.send(samples: Array(repeating: 6, count: 6), speech: .speech)
        await engine.send(samples: [7], speech: .ended)
        _ = await engine.stop()
        var played: [String] = []
        while let e = await engine.nextEvent() {
            switch e {
            case .audio(let item, let samples): played.append("\(item):\(samples.map(String.init).joined())")
            case .audioDone(let item): played.append("\(item) done")
            default: break
            }
        }
        #expect(played == ["echo-1:891234", "echo-1 done", "echo-2:0555555666666", "echo-2:7", "echo-2 done"])
    }
}
