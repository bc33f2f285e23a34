import Dialogue
import Foundation
import Pipeline
import Synchronization
import Testing
import TestSupport
@testable import Realtime

/// The local engine end to end on recorded answers, with the real VAD deciding speech.
@Suite struct LocalEngineTests {
    final class Log: Sendable {
        let events = Locked<[EngineEvent]>([])
        var all: [EngineEvent] { events.value }
        var texts: [(Speaker, String)] { all.texts }
        func count(_ match: (EngineEvent) -> Bool) -> Int { all.count(where: match) }
    }

    /// Returns once the engine's events meet `condition` (checked at each event as it is logged).
    static func waitFor(_ log: Log, timeout: Duration = .seconds(20), _ condition: @escaping @Sendable ([EngineEvent]) -> Bool) async throws {
        try await log.events.wait(for: "the engine's events the test needs", timeout: timeout, until: condition)
    }

    /// Waits (up to 10 s) until the words at the current speech's end are known — judged, the
    /// model's verdict included: a recognizer faster than the line, for tests that count frames.
    static func waitForTheWords(of engine: LocalEngine) async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while wordsPending(in: engine), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Whether the words at the current speech's end (and the model's verdict on them) are still
    /// to come.
    static func wordsPending(in engine: LocalEngine) -> Bool {
        engine.state.withLock { s in s.speculation.map { $0.heard == nil && $0.speechStarts == s.speechStarts } ?? false }
    }

    /// What the session hands the engine for a VAD decision.
    static func activity(_ decision: VoiceActivityDetector.Decision) -> SpeechActivity {
        switch decision.event {
        case .speechStarted?: .started
        case .speechEnded?: .ended
        case nil: decision.isSpeech ? .speech : .silence
        }
    }

    /// Plays a fixture into the engine as the pipeline would: 20 ms frames at 16 kHz, VAD decided.
    /// `immediate`: frames go through `sendNow` as the session hands them from the event loop,
    /// and through `send` only when it declines — the same conversation must come out.
    static func speak(_ fixture: String, into engine: LocalEngine, vad: inout VoiceActivityDetector, immediate: Bool = false) async throws {
        let narrow = try WAVFile.read(Fixtures.audio(fixture)).samples
        let resampler = try Resampler(from: 8000, to: 16000)
        let silence = [Int16](repeating: 0, count: 16000)   // a second: past the end-of-turn window
        let wide = silence + resampler.process(narrow) + resampler.flush() + silence
        var chunker = FrameChunker(sampleRate: 16000)
        for frame in chunker.push(wide) {
            let decision = vad.process(frame)
            let activity = Self.activity(decision)
            if immediate, engine.sendNow(speech: activity, samples: { frame.samples }) { continue }
            await engine.send(samples: frame.samples, speech: activity)
        }
    }

    @Test(arguments: [false, true]) func seed000ScenarioOnRecordedAnswers(immediate: Bool) async throws {
        let context = ConversationContext(purpose: "tomorrow's 2 pm meeting", questions: ["Can you attend?", "Does the place need to change?"], displayName: "ABC Company")
        let engine = LocalEngine(context: context, tts: try EspeakSynthesizer(), stt: try MoonshineTranscriber(directory: Fixtures.moonshine))
        let log = Log()
        let reader = Task { while let event = await engine.nextEvent() { log.events.withLock { $0.append(event) } } }
        let running = Task { try await engine.start() }   // hears and replies until stopped
        try await Self.waitFor(log) { $0.count { $0 == .audioDone(item: "local-1") } == 1 }
        var vad = VoiceActivityDetector()
        try await Self.speak("en_yes_attend.wav", into: engine, vad: &vad, immediate: immediate)
        try await Self.waitFor(log) { $0.count { $0 == .audioDone(item: "local-2") } == 1 }
        try await Self.speak("en_no_change.wav", into: engine, vad: &vad, immediate: immediate)
        try await Self.waitFor(log) { $0.contains { if case .endCall = $0 { true } else { false } } }
        let tracker = await engine.stop()
        await reader.value
        try await running.value

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

    /// `sendNow` takes every frame of a turn but the speech end (that one starts a transcription
    /// of what was said so far) and the one whose silence ends the turn — declining changes nothing.
    @Test func sendNowDeclinesTheSpeechEndAndTheFrameThatEndsTheTurn() async throws {
        let engine = LocalEngine(context: ConversationContext(purpose: "p", questions: ["q?"]), tts: try EspeakSynthesizer(),
                                 stt: try MoonshineTranscriber(directory: Fixtures.moonshine))
        let running = Task { try await engine.start() }   // hears and replies until stopped
        let frame = [Int16](repeating: 0, count: 320)
        var taken: [Bool] = [engine.sendNow(speech: .started, samples: { frame })]
        for _ in 0..<10 { taken.append(engine.sendNow(speech: .speech, samples: { frame })) }
        taken.append(engine.sendNow(speech: .ended, samples: { frame }))
        await engine.send(samples: frame, speech: .ended)   // silence transcribes to no answer: the window runs on
        try await Self.waitForTheWords(of: engine)   // no silence ends the turn before they are known
        for _ in 0..<30 { taken.append(engine.sendNow(speech: .silence, samples: { frame })) }
        // 500 ms of silence after the end of speech: the 25th silent frame, index 11 + 25.
        #expect(taken[..<11].allSatisfy { $0 } && !taken[11] && taken[12..<36].allSatisfy { $0 } && taken[36...].allSatisfy { !$0 }, "\(taken)")
        _ = await engine.stop()
        try await running.value
    }

    /// The turn ends 300 ms after the VAD's speech end, on the words transcribed there, when they
    /// already answer the question, and only after the 500 ms window when they do not.
    @Test func aCompleteAnswerEndsTheTurnSooner() async throws {
        for (fixture, early) in [("en_yes_attend.wav", true), ("en_unclear.wav", false)] {
            let engine = LocalEngine(context: ConversationContext(purpose: "p", questions: ["Can you attend?", "Is the place fine?"]),
                                     tts: try EspeakSynthesizer(), stt: try MoonshineTranscriber(directory: Fixtures.moonshine))
            let log = Log()
            let reader = Task { while let event = await engine.nextEvent() { log.events.withLock { $0.append(event) } } }
            let running = Task { try await engine.start() }   // hears and replies until stopped
            try await Self.waitFor(log) { $0.count { $0 == .audioDone(item: "local-1") } == 1 }
            let narrow = try WAVFile.read(Fixtures.audio(fixture)).samples
            let resampler = try Resampler(from: 8000, to: 16000)
            var chunker = FrameChunker(sampleRate: 16000)
            var vad = VoiceActivityDetector()
            var silentFramesAfterEnd: Int?
            var speculated = Speculated()
            for frame in chunker.push(resampler.process(narrow) + resampler.flush() + [Int16](repeating: 0, count: 24_000)) {
                let decision = vad.process(frame)
                let activity = Self.activity(decision)
                speculated.add(activity, frame.samples.count)
                await engine.send(samples: frame.samples, speech: activity)
                if activity == .ended { try await Self.waitForTheWords(of: engine) }   // as the window's count here assumes
                if activity == .ended { silentFramesAfterEnd = 0 } else if let n = silentFramesAfterEnd { silentFramesAfterEnd = n + 1 }
                if silentFramesAfterEnd != nil, !engine.state.withLock({ $0.listening }) { break }   // this frame ended the turn
            }
            try await Self.waitFor(log) { $0.texts.contains { $0.0 == .customer } }
            let heardAfter = try #require(silentFramesAfterEnd, "\(fixture): the VAD found the speech end")
            #expect(abs(engine.usage.sttSeconds - speculated.seconds) < 0.05,
                    "\(fixture): only what was said up to each speech end is transcribed, nothing again at the turn's end (\(engine.usage.sttSeconds) s, \(speculated.seconds) s)")
            if early {
                #expect(heardAfter == 15, "\(fixture): the turn ended 300 ms after the speech end (\(heardAfter) frames)")
            } else {
                #expect(heardAfter == 25, "\(fixture): the turn waited out the 500 ms window (\(heardAfter) frames)")
            }
            _ = await engine.stop()
            await reader.value
            try await running.value
        }
    }

    /// What the engine transcribes at each of the VAD's speech ends: its pre-roll and everything
    /// from the speech start to that frame — the sum if nothing is transcribed a second time.
    struct Speculated {
        var before = 0, sinceStart: Int?, total = 0
        var seconds: Double { Double(total) / 16000 }

        mutating func add(_ activity: SpeechActivity, _ count: Int) {
            if activity == .started, sinceStart == nil { sinceStart = min(before, LocalEngine.preRollSamples) }
            if activity == .ended, let n = sinceStart { total += n }
            if let n = sinceStart { sinceStart = n + count } else { before += count }
        }
    }

    /// Under load a silence longer than the end-of-turn window can go by before the words at the
    /// speech end are known: the turn waits for them (they set the window) and then ends on them
    /// at once, not on a second transcription.
    @Test func aTurnWhoseWindowGoesByWhileItsWordsAreTranscribedEndsOnThem() async throws {
        let engine = LocalEngine(context: ConversationContext(purpose: "p", questions: ["Is there anything else?", "Is the place fine?"]),
                                 tts: try EspeakSynthesizer(), stt: try MoonshineTranscriber(directory: Fixtures.moonshine))
        let log = Log()
        let reader = Task { while let event = await engine.nextEvent() { log.events.withLock { $0.append(event) } } }
        let running = Task { try await engine.start() }   // hears and replies until stopped
        try await Self.waitFor(log) { $0.count { $0 == .audioDone(item: "local-1") } == 1 }
        let narrow = try WAVFile.read(Fixtures.audio("en_unclear.wav")).samples
        let resampler = try Resampler(from: 8000, to: 16000)
        var chunker = FrameChunker(sampleRate: 16000)
        var vad = VoiceActivityDetector()
        var speculated = Speculated()
        for frame in chunker.push(resampler.process(narrow) + resampler.flush() + [Int16](repeating: 0, count: 24_000)) {
            let decision = vad.process(frame)
            let activity = Self.activity(decision)
            speculated.add(activity, frame.samples.count)
            if engine.sendNow(speech: activity, samples: { frame.samples }) { continue }
            let before = engine.usage.sttSeconds
            await engine.send(samples: frame.samples, speech: activity)
            // The speech end's transcription runs on while the frames after it arrive at once
            // (once it has begun: the meter counts its start).
            while activity == .ended, engine.usage.sttSeconds == before { try await Task.sleep(for: .milliseconds(1)) }
        }
        #expect(!log.texts.contains { $0.0 == .customer } && engine.state.withLock { $0.listening },
                "1.5 s of silence went by before the words were text, and the turn waited for them")
        try await Self.waitFor(log) { $0.texts.contains { $0.0 == .customer } }
        #expect(log.texts.filter { $0.0 == .customer }.count == 1, "\(log.texts)")
        #expect(abs(engine.usage.sttSeconds - speculated.seconds) < 0.05, "nothing transcribed twice: \(engine.usage.sttSeconds) s, \(speculated.seconds) s")
        _ = await engine.stop()
        await reader.value
        try await running.value
    }

    @Test(arguments: [false, true]) func echoEngineRepeatsEachUtteranceWhenItEnds(immediate: Bool) async throws {
        let engine = EchoEngine(sampleRate: 10, maxUtteranceSeconds: 1)
        try await engine.start()
        // Through `sendNow` (the event-loop path) or `send`: the same echo.
        func send(samples: [Int16], speech: SpeechActivity) async {
            if immediate { #expect(engine.sendNow(speech: speech, samples: { samples })) } else { await engine.send(samples: samples, speech: speech) }
        }
        await send(samples: [8], speech: .silence)
        await send(samples: [9], speech: .silence)
        await send(samples: [1, 2], speech: .started)
        await send(samples: [3], speech: .speech)
        #expect(engine.events.count == 0, "nothing is played while the caller is still talking")
        await send(samples: [4], speech: .ended)
        await send(samples: [0], speech: .silence)
        // A long utterance is played in pieces of at most maxUtteranceSeconds (memory stays bounded).
        await send(samples: Array(repeating: 5, count: 6), speech: .started)
        await send(samples: Array(repeating: 6, count: 6), speech: .speech)
        await send(samples: [7], speech: .ended)
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

extension [EngineEvent] {
    /// The transcript lines among the events: who said what.
    var texts: [(Speaker, String)] { compactMap { if case .transcript(let s, let t, _) = $0 { (s, t) } else { nil } } }
}
