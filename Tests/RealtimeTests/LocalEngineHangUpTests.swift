import Dialogue
import Foundation
import Pipeline
import Synchronization
import Testing
import TestSupport
@testable import Realtime

/// A caller who answers and hangs up at once has answered: the turn the hang-up cut short is
/// heard (`LocalEngine.callEnded`), taken by the dialogue and returned for the transcript, and
/// nothing is said back. Before, the call's end was stored without those words.
@Suite struct LocalEngineHangUpTests {
    /// Opens once, for every transcription waiting and to come.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { s -> Bool in
                    if s.open { return true }
                    s.waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }

        func open() {
            let waiting = state.withLock { s in
                s.open = true
                defer { s.waiters = [] }
                return s.waiters
            }
            for waiter in waiting { waiter.resume() }
        }
    }

    /// Hears `text` in whatever it is given, each transcription once `gate` is open; says when one starts.
    final class HeldRecognizer: SpeechRecognizer {
        let text: String
        let gate = Gate()
        let started: AsyncStream<Void>
        private let starting: AsyncStream<Void>.Continuation
        /// Transcriptions asked for so far.
        let count = Atomic(0)
        /// How urgent each transcription was (`BlockingWorkPool.urgency` where it was asked for).
        let urgencies = Mutex<[BlockingWorkPool.Urgency]>([])

        init(_ text: String, open: Bool) {
            self.text = text
            (started, starting) = AsyncStream<Void>.makeStream()
            if open { gate.open() }
        }

        func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float) async throws -> Transcript {
            count.add(1, ordering: .relaxed)
            urgencies.withLock { $0.append(BlockingWorkPool.urgency) }
            starting.yield()
            await gate.wait()
            return Transcript(certain: text)
        }
    }

    static let context = ConversationContext(purpose: "the meeting", questions: ["Can you attend the meeting?", "Does the place need to change?"])
    static let voiced = [Int16](repeating: 3000, count: 320), quiet = [Int16](repeating: 0, count: 320)

    /// The engine started and its greeting and first question said (read off its events).
    static func started(_ engine: LocalEngine) async -> Task<Void, any Error> {
        let running = Task { try await engine.start() }
        while let event = await engine.nextEvent(), event != .audioDone(item: "local-1") {}
        return running
    }

    /// The engine's events from here on, into a log.
    static func logging(_ engine: LocalEngine) -> (LocalEngineTests.Log, Task<Void, Never>) {
        let log = LocalEngineTests.Log()
        return (log, Task { while let event = await engine.nextEvent() { log.events.withLock { $0.append(event) } } })
    }

    @Test func wordsStillBeingSaidWhenTheCallerHangsUpAnswerTheQuestion() async throws {
        let recognizer = HeldRecognizer("Yes, I can attend.", open: true)
        let engine = LocalEngine(context: Self.context, tts: try EspeakSynthesizer(), stt: recognizer)
        let running = await Self.started(engine)
        let (log, reader) = Self.logging(engine)
        await engine.send(samples: Self.voiced, speech: .started)
        for _ in 0..<50 { await engine.send(samples: Self.voiced, speech: .speech) }   // a second of speech, no speech end yet
        let words = await engine.callEnded()
        #expect(words == ["Yes, I can attend."])
        #expect(recognizer.urgencies.withLock { $0 } == [.whenIdle], "heard after the hang-up: behind live calls' words")
        let tracker = await engine.stop()
        #expect(tracker.finalAnswers.map(\.status) == [.answered, .notAsked], "the next question was never said: \(tracker.answers)")
        #expect(tracker.answers.first?.answerSummary == "yes")
        await reader.value
        try await running.value
        #expect(log.count { if case .audio = $0 { true } else { false } } == 0, "nothing was said after the hang-up")
        #expect(log.texts.isEmpty, "the words are returned, not sent as an event nobody reads: \(log.texts)")
    }

    /// …and not transcribed a second time: the same audio twice held a recognizer lane while live
    /// calls waited (30 Nov, `make bench`'s barge-in).
    @Test func wordsBeingTranscribedWhenTheCallerHangsUpAreWaitedFor() async throws {
        let recognizer = HeldRecognizer("Yes, I can attend.", open: false)
        let engine = LocalEngine(context: Self.context, tts: try EspeakSynthesizer(), stt: recognizer)
        let running = await Self.started(engine)
        let (log, reader) = Self.logging(engine)
        await engine.send(samples: Self.voiced, speech: .started)
        for _ in 0..<50 { await engine.send(samples: Self.voiced, speech: .speech) }
        await engine.send(samples: Self.quiet, speech: .ended)   // its words up to here are being transcribed…
        var starts = recognizer.started.makeAsyncIterator()
        await starts.next()
        let ended = Task { await engine.callEnded() }   // …when the caller hangs up
        try await waitUntil { engine.state.withLock { $0.hungUp } }
        recognizer.gate.open()
        #expect(await ended.value == ["Yes, I can attend."])
        #expect(recognizer.count.load(ordering: .relaxed) == 1, "the audio was transcribed once")
        let tracker = await engine.stop()
        #expect(tracker.answers.first?.status == .answered && tracker.answers.first?.answerSummary == "yes", "\(tracker.answers)")
        await reader.value
        try await running.value
        #expect(log.count { if case .audio = $0 { true } else { false } } == 0, "nothing was said after the hang-up")
    }

    @Test func anEngineThatNeverStartedHasNothingToHear() async throws {
        let engine = LocalEngine(context: Self.context, tts: try EspeakSynthesizer(), stt: HeldRecognizer("Yes.", open: false))
        await engine.send(samples: Self.voiced, speech: .started)
        #expect(await engine.callEnded() == [], "returns at once: no hearing task to wait for")
        #expect(await engine.callEnded() == [], "and once more")
        _ = await engine.stop()
    }

    @Test func aHangUpAfterTheTurnWasAnsweredAddsNothing() async throws {
        let engine = LocalEngine(context: Self.context, tts: try EspeakSynthesizer(), stt: HeldRecognizer("Yes, I can attend.", open: true))
        let running = await Self.started(engine)
        await engine.send(samples: Self.voiced, speech: .started)
        for _ in 0..<50 { await engine.send(samples: Self.voiced, speech: .speech) }
        await engine.send(samples: Self.quiet, speech: .ended)
        for _ in 0..<60 { await engine.send(samples: Self.quiet, speech: .silence) }   // past every window: the turn is over
        // The answer is heard and the next question asked; the caller hangs up on it.
        var heard: [String] = []
        while let event = await engine.nextEvent(), event != .audioDone(item: "local-2") {
            if case .transcript(.customer, let text, _) = event { heard.append(text) }
        }
        #expect(heard == ["Yes, I can attend."], "heard once, as the turn it was")
        #expect(await engine.callEnded() == [])
        let tracker = await engine.stop()
        #expect(tracker.finalAnswers.map(\.status) == [.answered, .pending], "the next question was said: \(tracker.answers)")
        try await running.value
    }
}
