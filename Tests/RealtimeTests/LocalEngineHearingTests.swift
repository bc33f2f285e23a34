import Dialogue
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Realtime

/// The local engine takes the caller's frames while it transcribes: the frames after a speech
/// end are not held back behind the recognizer (over real calls under load they came after a 1–4 s
/// transcription all at once, and the turn was judged over on none of them).
@Suite struct LocalEngineHearingTests {
    /// Answers with `texts` in turn, each only once the test opens the gate (or after 3 s).
    final class GatedRecognizer: SpeechRecognizer {
        let texts: [String]
        let calls = Locked(0), returned = Locked(0), open = Locked(false)

        init(_ texts: [String]) { self.texts = texts }

        func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float) async throws -> Transcript {
            let n = calls.withLock { c in defer { c += 1 }; return c }
            try? await open.wait(for: "the test to let the words out", timeout: .seconds(3)) { $0 }
            returned.withLock { $0 += 1 }
            return Transcript(certain: texts[min(n, texts.count - 1)])
        }
    }

    /// An engine asking about a change of place, hearing with `recognizer` (whose gate `gated` is),
    /// told "Sorry, I'm in a meeting," — the VAD's speech end — and, 100 ms later while those words
    /// are being heard, "call me later.", then a second of silence (past every window); `meanwhile`
    /// runs before the gate opens. Returns the engine's events once it has heard the caller.
    static func callerGoesOnAfterAPause(hearingWith recognizer: any SpeechRecognizer, gated: GatedRecognizer,
                                        meanwhile: () -> Void = {}) async throws -> LocalEngineTests.Log {
        let engine = LocalEngine(context: ConversationContext(purpose: "p", questions: ["Does the place need to change?"]), tts: try EspeakSynthesizer(), stt: recognizer)
        let log = LocalEngineTests.Log()
        let reader = Task { while let event = await engine.nextEvent() { log.events.withLock { $0.append(event) } } }
        let running = Task { try await engine.start() }
        try await LocalEngineTests.waitFor(log) { $0.count { $0 == .audioDone(item: "local-1") } == 1 }
        let voiced = [Int16](repeating: 3000, count: 320), quiet = [Int16](repeating: 0, count: 320)
        func say(frames: Int) async {
            await engine.send(samples: voiced, speech: .started)
            for _ in 1..<frames { await engine.send(samples: voiced, speech: .speech) }
            await engine.send(samples: quiet, speech: .ended)
        }
        await say(frames: 60)
        try await gated.calls.wait(for: "the first speech end's words sent to the recognizer") { $0 > 0 }   // its words are being transcribed
        for _ in 0..<5 { await engine.send(samples: quiet, speech: .silence) }
        await say(frames: 40)
        for _ in 0..<50 { await engine.send(samples: quiet, speech: .silence) }
        meanwhile()
        gated.open.withLock { $0 = true }
        try await LocalEngineTests.waitFor(log) { $0.texts.contains { $0.0 == .customer } }
        _ = await engine.stop()
        await reader.value
        try await running.value
        return log
    }

    @Test func theCallerGoingOnWhileItsWordsAreTranscribedIsHeardAsOneTurn() async throws {
        let recognizer = GatedRecognizer(["Sorry, I'm in a meeting.", "Sorry, I'm in a meeting, call me later."])
        let log = try await Self.callerGoesOnAfterAPause(hearingWith: recognizer, gated: recognizer) {
            #expect(recognizer.returned.withLock { $0 } == 0, "every frame was taken while the first speech end's words were still being transcribed")
        }
        #expect(log.texts.filter { $0.0 == .customer }.map(\.1) == ["Sorry, I'm in a meeting, call me later."], "\(log.texts)")
        #expect(recognizer.calls.withLock { $0 } == 2, "the half, then the whole")
    }

    /// Hears as `GatedRecognizer` does, but asks `wanted` when let go, as Moonshine asks at each
    /// step, and gives up (`CancellationError`) when the words are no longer wanted.
    final class StoppingRecognizer: SpeechRecognizer {
        let gated: GatedRecognizer
        let givenUp = Locked(0)

        init(_ texts: [String]) { gated = GatedRecognizer(texts) }

        func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float) async throws -> Transcript {
            try await gated.transcribe(pcm16k: samples, expecting: words, bias: bias)
        }

        func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float, while wanted: @escaping @Sendable () -> Bool) async throws -> Transcript {
            let heard = try await gated.transcribe(pcm16k: samples, expecting: words, bias: bias)
            guard wanted() else {
                givenUp.withLock { $0 += 1 }
                throw CancellationError()
            }
            return heard
        }
    }

    /// The words up to a pause are given up once the caller goes on: the recognizer is told they
    /// are no longer wanted, and the turn is heard whole all the same.
    @Test func theWordsUpToAPauseAreGivenUpWhenTheCallerGoesOn() async throws {
        let recognizer = StoppingRecognizer(["Sorry, I'm in a meeting.", "Sorry, I'm in a meeting, call me later."])
        let log = try await Self.callerGoesOnAfterAPause(hearingWith: recognizer, gated: recognizer.gated)
        #expect(log.texts.filter { $0.0 == .customer }.map(\.1) == ["Sorry, I'm in a meeting, call me later."], "\(log.texts)")
        #expect(recognizer.givenUp.withLock { $0 } == 1, "the first speech end's words, no longer wanted")
        #expect(!log.all.contains { if case .error = $0 { true } else { false } }, "a give-up is no error")
    }
}
