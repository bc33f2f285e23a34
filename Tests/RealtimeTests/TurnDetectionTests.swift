import Dialogue
import Foundation
import Pipeline
import Testing
import TestLanes
import TestSupport
@testable import Realtime

/// `engine.turn_detection: model` in the local engine, on speech as a phone line carries it
/// (espeak-ng → 8 kHz μ-law → 16 kHz, the real VAD deciding speech): Smart Turn ends a complete
/// turn at the VAD's speech end, sooner than the pause rule, and holds a turn cut at a
/// mid-sentence pause — the caller goes on after 1.2 s of silence and is heard as one answer,
/// where the pause rule would have answered the half sentence.
@Suite(.serialized, .tags(.virtualTime)) struct TurnDetectionTests {
    static let model = try? SmartTurnModel.installed(in: Fixtures.repository.appendingPathComponent(".deps").path)
    static let question = "Can you attend the meeting on Friday?"

    /// 16 kHz samples of `ssml` through the phone line, with `lead` s of silence before.
    static func phone(_ ssml: String) async throws -> [Int16] {
        let down = try Resampler(from: EspeakSynthesizer.sampleRate, to: 8000)
        let narrow = G711.decode(G711.encode(down.process(try await EspeakCLI.say(ssml: ssml)) + down.flush(), law: .muLaw), law: .muLaw)
        let up = try Resampler(from: 8000, to: 16_000)
        return up.process(narrow) + up.flush()
    }

    /// Feeds `audio` then silence as 20 ms frames, each speech end's words (and the model's
    /// verdict) known before the next frame — a recognizer faster than the line, so the count is
    /// the turn-taking's own; returns the caller's transcripts and, for the first turn, how many
    /// silent frames after the VAD's speech end went by before it ended. In virtual time: the
    /// recognizer's and the model's results come when their lanes finish, whatever the machine's
    /// load (beside two busy loops the model once missed its 2-s ceiling in real time, 3 Dec, and
    /// the pause rule answered the half sentence).
    static func converse(_ engine: LocalEngine, _ audio: [Int16], silence: Int = 100) async throws -> (texts: [String], framesAfterEnd: Int?) {
        let executor = VirtualTimeExecutor()
        return try await executor.run {
            let log = LocalEngineTests.Log()
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { while let event = await engine.nextEvent() { log.events.withLock { $0.append(event) } } }
                group.addTask { try await engine.start() }   // hears and replies until stopped
                try await Self.until(executor) { log.count { $0 == .audioDone(item: "local-1") } == 1 }
                var vad = VoiceActivityDetector()
                var chunker = FrameChunker(sampleRate: 16_000)
                var lastEnd: Int?, endedAfter: Int?, turns = 0, listening = false
                let frames = chunker.push([Int16](repeating: 0, count: 8000) + audio + [Int16](repeating: 0, count: silence * 320))
                for (index, frame) in frames.enumerated() {
                    let decision = vad.process(frame)
                    if decision.event == .speechEnded { lastEnd = index }
                    await engine.send(samples: frame.samples, speech: LocalEngineTests.activity(decision))
                    if decision.event == .speechEnded {
                        try await Self.until(executor) { !LocalEngineTests.wordsPending(in: engine) }
                    }
                    let now = engine.state.withLock { $0.listening }
                    if listening, !now {
                        turns += 1
                        if endedAfter == nil, let lastEnd { endedAfter = index - lastEnd }
                    }
                    listening = now
                }
                try await Self.until(executor) { log.texts.count { $0.0 == .customer } == turns }
                _ = await engine.stop()
                try await group.waitForAll()
                return (log.texts.filter { $0.0 == .customer }.map(\.1), endedAfter)
            }
        }
    }

    /// Waits on the virtual clock, a millisecond at a time, until `condition` holds (at most a
    /// virtual minute: then the test fails, saying so).
    static func until(_ executor: VirtualTimeExecutor, _ condition: () -> Bool) async throws {
        let deadline = executor.now.advanced(by: .seconds(60))
        while !condition() {
            guard executor.now < deadline else { Issue.record("still waiting after a virtual minute"); return }
            try await executor.sleep(until: executor.now.advanced(by: .milliseconds(1)))
        }
    }

    static func engine(_ turns: TurnDetector) throws -> LocalEngine {
        LocalEngine(context: ConversationContext(purpose: "the meeting", questions: [question]), tts: try EspeakSynthesizer(),
                    stt: try MoonshineTranscriber(directory: Fixtures.moonshine, lanes: 1), turns: turns)
    }

    @Test(.enabled(if: model != nil)) func theModelEndsACompleteTurnSoonerAndHoldsACutOne() async throws {
        let model = try #require(Self.model)
        let withModel = TurnDetector(model: model, threshold: 0.8, ceilingMilliseconds: 2000)
        // Whole: judged complete at the speech end; the pause rule waits its window out. A sentence
        // that ends on a voiced sound: the energy VAD ended "…my office address." 320 ms before its
        // audio did, inside the final "-ess", and the model rightly called that cut word incomplete
        // (0.28 at the speech end, 0.97 on the whole; on this machine, 28 Nov).
        let whole = try await Self.phone("Please call me back tomorrow morning.")
        let byModel = try await Self.converse(try Self.engine(withModel), whole)
        let byPause = try await Self.converse(try Self.engine(.pause), whole)
        #expect(byModel.texts.count == 1 && byPause.texts.count == 1, "\(byModel.texts) \(byPause.texts)")
        let modelFrames = try #require(byModel.framesAfterEnd), pauseFrames = try #require(byPause.framesAfterEnd)
        #expect(modelFrames + 10 <= pauseFrames, "the model ended the turn \(modelFrames) frames after the speech end, the pause rule \(pauseFrames)")

        // Cut by a 1.2 s pause mid-sentence: the model holds the turn, and the caller is heard whole.
        let paused = try await Self.phone(#"I'm not sure yet, I need to check with <break time="1200ms"/> my wife."#)
        let held = try await Self.converse(try Self.engine(withModel), paused)
        #expect(held.texts.count == 1 && held.texts.first?.lowercased().contains("wife") == true && held.texts.first?.lowercased().contains("sure") == true,
                "one turn, both halves: \(held.texts)")
        let cut = try await Self.converse(try Self.engine(.pause), paused)
        #expect(cut.texts.count == 2, "the pause rule answers the half sentence: \(cut.texts)")
    }

    /// A turn of one or two words the model judges complete waits the answered window, as the pause
    /// rule does: over real calls the model ended "Yes, … I can attend." at "Yes," (personas with the
    /// model 88 % of statuses; 98.7 % with this). A longer one still ends at once.
    /// The ceiling bounds the wait for the model too: a verdict not back within it is none, and
    /// the pause rule decides. (The model takes ~35 ms; a 1 ms ceiling is always passed.) The
    /// control's ceiling is a minute, not the default 2 s: beside a CPU hog the model took over
    /// 2 s here once (30 Nov), and what the control shows is only that a verdict in time counts.
    @Test(.enabled(if: model != nil)) func aVerdictLaterThanTheCeilingIsNone() async throws {
        let model = try #require(Self.model)
        let utterance = [Int16](repeating: 0, count: 32_000)
        #expect(await TurnDetector(model: model, ceilingMilliseconds: 1).completes(utterance) == nil)
        #expect(await TurnDetector(model: model, ceilingMilliseconds: 60_000).completes(utterance) != nil, "within the ceiling it answers")
    }

    @Test func aBriefTurnTheModelCallsCompleteWaitsTheAnsweredWindow() throws {
        let engine = try Self.engine(.pause)
        func judged(_ text: String) -> LocalEngine.Speculation {
            LocalEngine.Speculation(speechStarts: 1, heard: Transcript(certain: text), answers: true, brief: LocalEngine.isBrief(text), complete: true)
        }
        #expect(engine.window(after: judged("Yes,")) == engine.answeredTurnMilliseconds)
        #expect(engine.window(after: judged("Yes, sure.")) == engine.answeredTurnMilliseconds)
        #expect(engine.window(after: judged("네.")) == engine.answeredTurnMilliseconds)
        #expect(engine.window(after: judged("Yes, I can attend.")) == 0)
        #expect(engine.answeredTurnMilliseconds > 0)
    }

    /// The words and the model side by side: words that answer the question end the turn on the
    /// answered window even when the model judges it unfinished (over the phone line it judged a
    /// third of personas' whole answers so — "Yes, that's right." — and they waited 200 ms more
    /// than without it); words that answer nothing wait out the model's ceiling only when it
    /// judges them unfinished ("I'm not sure yet, I need to check with …").
    @Test func theWordsSettleAnAnsweredTurnAndTheModelAnUnansweredOne() throws {
        let engine = try Self.engine(TurnDetector(model: nil, threshold: 0.8, ceilingMilliseconds: 2000))
        func judged(_ text: String, answers: Bool, complete: Bool?) -> LocalEngine.Speculation {
            LocalEngine.Speculation(speechStarts: 1, heard: Transcript(certain: text), answers: answers, brief: LocalEngine.isBrief(text), complete: complete)
        }
        #expect(engine.window(after: judged("Yes, that's right.", answers: true, complete: false)) == engine.answeredTurnMilliseconds)
        #expect(engine.window(after: judged("Yes, that's right.", answers: true, complete: nil)) == engine.answeredTurnMilliseconds)
        #expect(engine.window(after: judged("Yes, that's right.", answers: true, complete: true)) == 0)
        #expect(engine.window(after: judged("I'm not sure yet, I need to check with", answers: false, complete: false)) == 2000)
        #expect(engine.window(after: judged("I'm not sure yet.", answers: false, complete: true)) == 0)
        #expect(engine.window(after: judged("I'm not sure yet.", answers: false, complete: nil)) == engine.endOfTurnMilliseconds)
        #expect(engine.answeredTurnMilliseconds < engine.endOfTurnMilliseconds)
    }

    /// Words that stop mid-sentence hold the turn past the pause rule's window (to the ceiling):
    /// the caller goes on after 800 ms and is heard as one answer.
    @Test func wordsThatTrailOffHoldTheTurn() async throws {
        let paused = try await Self.phone(#"Yes, I can come, but <break time="800ms"/> only after six."#)
        let held = try await Self.converse(try Self.engine(.pause), paused)
        #expect(held.texts.count == 1 && held.texts.first?.lowercased().contains("after") == true, "one turn, both halves: \(held.texts)")
    }
}
