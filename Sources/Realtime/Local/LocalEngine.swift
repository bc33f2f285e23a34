import Dialogue
import Foundation
import Knowledge
import Pipeline
import Tools
import Synchronization

/// The embedded engine, no keys needed: Moonshine hears, the scripted dialogue decides, espeak-ng
/// speaks. English.
///
/// Caller audio arrives at 16 kHz with the pipeline's VAD decisions; an utterance is buffered
/// from speech start (with a short pre-roll) to speech end, then transcribed by the engine's
/// hearing task (on the recognizer's worker lanes, so a 0.5 s transcription never blocks the
/// cooperative pool that paces calls) while the caller's next frames are taken: `send` never
/// waits for the recognizer or the reply (`LocalEngine+Hearing.swift`).
///
/// The end of the caller's turn is decided by the pause *and* the words: at the VAD's speech end
/// the utterance is transcribed at once, while the caller may still go on; if the words already
/// answer the question ("Yes, I can attend.") the turn ends after a short pause
/// (`answeredTurnMilliseconds`), else ("Yes, and …") after the whole end-of-turn window; no
/// silence ends the turn before those words are known (under load, a silence longer than the
/// window may pass first: the words then end it at once). Either way that one transcription is
/// the turn's, unless the caller spoke again: the same audio is never transcribed twice (under
/// load a second pass doubled the recognizer's work). Replies are synthesized a sentence at a
/// time, so the first is heard while the rest is made.
public final class LocalEngine: ConversationEngine {
    public let inputFormat = EngineAudioFormat.pcm16(sampleRate: MoonshineTranscriber.sampleRate)
    public let outputFormat = EngineAudioFormat.pcm16(sampleRate: EspeakSynthesizer.sampleRate)
    public let events = BoundedQueue<EngineEvent>(capacity: 32, policy: .suspendProducer)
    let meter = UsageMeter()
    public var usage: EngineUsage { meter.usage }
    /// What the caller's frames finished, for the hearing task: one per speech end at most, so a
    /// few are plenty; full (the recognizer that far behind), `send` waits.
    let heard = BoundedQueue<TurnOutcome>(capacity: 8, policy: .suspendProducer)
    /// The dialogue's next steps, for the replying task.
    let replies = BoundedQueue<Reply>(capacity: 8, policy: .suspendProducer)

    /// The call's voice in its own language, and in each other language its caller may switch to.
    let tts: any SpeechSynthesizer
    let otherVoices: [String: any SpeechSynthesizer]
    /// How strongly the recognizer favours the words the question expects (0: not at all).
    private let recognitionBias: Float
    /// `engine.local.recognition_bias`'s default: the best of `make bench`'s `recognition` suite
    /// (persona answers over an 8 kHz line read right: 30/62 unbiased, 38 at 3, 40 at 5, 32 at 8).
    public static let defaultRecognitionBias: Float = 5
    /// The template's keys and the words each stands for.
    private let keypad: [String: String]
    /// The call's collections, searched when the caller asks a question; nil: none.
    private let knowledge: (any KnowledgeSearching)?
    /// Runs a flow's tool steps (the call's tools); nil: the call has none.
    let tools: ToolRunner?
    /// Weighs a phone menu's options by meaning (`weighMenu`); nil: by their words alone.
    let meaning: E5Embedder?
    /// When a FAQ match is good enough to read out.
    public let answerPolicy: KnowledgeAnswerPolicy
    let state: Mutex<State>

    /// Pre-roll kept before the VAD's onset decision (it fires after 40 ms of speech).
    static let preRollSamples = MoonshineTranscriber.sampleRate * 3 / 10
    /// An answer longer than this is cut (bounded memory).
    static let maxUtteranceSamples = MoonshineTranscriber.sampleRate * 30

    /// Silence after the VAD's speech end before the caller's turn counts as over: people pause
    /// inside an answer ("Yes, I can attend … the meeting").
    public let endOfTurnMilliseconds: Int
    /// The shorter window when the words so far already answer the question (people still pause
    /// inside an answer: "Yes, … I can attend").
    public let answeredTurnMilliseconds: Int
    /// Whether a pause ends the caller's turn: by its length, or as the end-of-turn model judges.
    public let turns: TurnDetector
    /// Fewer words than this over the agent, besides backchannel words, do not take the turn.
    public let overlapMinimumWords: Int
    /// How long the caller may stay silent after a question (counted from the moment it was
    /// synthesized, so its own duration is added) before it is asked again, then the call ends.
    public let replyTimeoutMilliseconds: Int

    struct State {
        var dialogue: ScriptedDialogue
        var recent: [Int16] = []
        var utterance: [Int16] = []
        /// Silence after the VAD's speech end, kept aside: it joins the utterance only if the
        /// caller goes on (Moonshine turns a short word followed by long silence into nothing).
        var pause: [Int16] = []
        var listening = false
        /// Silence since the VAD said speech ended, while the turn may still continue.
        var trailingSilence: Int?
        var itemCount = 0
        var ended = false
        /// Counts the caller's speech starts: a transcription made at a speech end is stale once it moved.
        var speechStarts = 0
        /// The transcription started at the last speech end (valid while `speechStarts` has not
        /// moved): its text once done, and whether that already answers the question.
        var speculation: Speculation?
        /// A question was asked and the caller has not started to answer.
        var awaitingReply = false
        var waitedMilliseconds = 0
        var replyDeadlineMilliseconds = 0
        /// Told by the session (`callerSpeaksOverAgent`): the next speech start is an overlap.
        var overlapNext = false
        /// The caller's speech over the agent, judged by its words at a speech end.
        var overlap: Overlap?
        var overlapHandler: (@Sendable (OverlapVerdict) async -> Void)?
        /// `start()`'s hearing and replying tasks are running.
        var running = false
        /// The caller hung up (`callEnded`): what is still heard counts, nothing more is said.
        var hungUp = false
        /// The caller's words heard after the hang-up, for the session's transcript.
        var lastWords: [String] = []
        /// The speech end whose transcription, in flight at the hang-up, holds the caller's last words.
        var lastWordsSpeculation: Int?
        /// The call's purpose and questions as a sentence embedding, once a menu was weighed.
        var menuGoalVector: [Float]?
        /// What the caller is heard with: it takes the language being spoken for the likelier one.
        var ear: any SpeechRecognizer

        /// Forgets the caller's turn in progress: what was said, the pause after it, and its transcription.
        mutating func dropTurn() {
            listening = false
            trailingSilence = nil
            utterance = []
            pause = []
            speculation = nil
        }
    }

    /// An overlap being heard, and the wait for a reply it paused (restored if it was not a turn).
    struct Overlap {
        var awaitingReply: Bool
        var waitedMilliseconds: Int
    }

    struct Speculation {
        var speechStarts: Int
        var heard: Transcript?
        var answers = false
        /// The words stop short of an answer (`ScriptedDialogue.stopsShort`).
        var stopsShort = false
        /// At most `briefTurnWords` words ("Yes,").
        var brief = false
        /// The end-of-turn model's verdict on the audio up to the speech end; nil: none (yet).
        var complete: Bool?
        var transcribing: Duration = .zero
    }

    /// What a caller frame finished.
    enum TurnOutcome {
        case utterance([Int16])
        /// The turn ended on words already transcribed (in `transcribing`, for the report).
        case transcribed(Transcript, transcribing: Duration)
        /// The VAD heard speech end: what was said so far, to transcribe before the window is out.
        case speechEnded([Int16], speechStarts: Int)
        case noReply
        /// The call ended: every outcome before this one has been heard once it reaches the
        /// replying task (`callEnded`), which finishes the stream.
        case hangUp(AsyncStream<Void>.Continuation)
    }

    /// `otherVoices`: the voice for each of `context.languages` (one the caller switches to
    /// without a voice here is not switched to); `stt` must then tell those languages apart.
    public init(context: ConversationContext, tts: any SpeechSynthesizer, otherVoices: [String: any SpeechSynthesizer] = [:],
                stt: any SpeechRecognizer, endOfTurnMilliseconds: Int = 500,
                answeredTurnMilliseconds: Int = 300, replyTimeoutMilliseconds: Int = 8000, turns: TurnDetector = .pause,
                knowledge: (any KnowledgeSearching)? = nil, answerPolicy: KnowledgeAnswerPolicy = .standard, tools: ToolRunner? = nil,
                overlapMinimumWords: Int = 1, recognitionBias: Float = 0, meaning: E5Embedder? = nil) {
        self.turns = turns
        self.meaning = meaning
        self.recognitionBias = recognitionBias
        self.overlapMinimumWords = overlapMinimumWords
        self.knowledge = knowledge
        self.tools = tools
        self.answerPolicy = answerPolicy
        self.answeredTurnMilliseconds = answeredTurnMilliseconds
        self.tts = tts
        self.otherVoices = otherVoices
        self.endOfTurnMilliseconds = endOfTurnMilliseconds
        self.replyTimeoutMilliseconds = replyTimeoutMilliseconds
        self.keypad = context.keypad
        var context = context
        context.languages = context.languages.filter { otherVoices[$0] != nil }
        self.state = Mutex(State(dialogue: ScriptedDialogue(context: context), ear: stt))
    }

    /// Says the greeting, then hears and replies until the call ends (the session cancels this
    /// task; `stop()` ends it too).
    public func start() async throws {
        state.withLock { $0.running = true }
        defer { state.withLock { $0.running = false } }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.hear() }
            group.addTask {
                await self.say(self.state.withLock { $0.dialogue.start() })
                await self.reply()
            }
        }
    }

    /// Takes the frame into the turn; what it finished goes to the hearing task.
    public func send(samples: [Int16], speech: SpeechActivity) async {
        let milliseconds = samples.count * 1000 / MoonshineTranscriber.sampleRate
        guard let outcome = state.withLock({ take(samples, speech, milliseconds: milliseconds, &$0) }) else { return }
        _ = await heard.send(outcome)
    }

    /// A key the template maps ("1" → "yes") answers as those words would, ending the caller's
    /// turn at once (a transcription in flight is stale: the caller's turn moved on); other keys
    /// are only in the transcript (the session writes `[DTMF n]`).
    public func dtmf(_ digit: Character) async {
        guard let words = keypad[String(digit)] else { return }
        let pressed = state.withLock { s -> Bool in
            guard !s.ended else { return false }
            s.dropTurn()
            s.awaitingReply = false
            s.speechStarts += 1
            return true
        }
        if pressed { _ = await replies.send(.pressed(words)) }
    }

    /// Every frame but the one that ends the caller's turn (that one starts a transcription).
    public func sendNow(speech: SpeechActivity, samples: () -> [Int16]) -> Bool {
        state.withLock { s in
            let milliseconds = 20   // the session's frames
            let next = Self.turn(after: speech, milliseconds: milliseconds, s, endOfTurn: window(s))
            guard !next.ends, !(speech == .ended && s.listening), !Self.timesOut(after: speech, milliseconds: milliseconds, s) else { return false }
            _ = take(samples(), speech, milliseconds: milliseconds, &s)   // finishes nothing: checked above
            return true
        }
    }

    /// Adds a frame to the turn; says what it finished: the caller's utterance, or the wait for one.
    private func take(_ samples: [Int16], _ speech: SpeechActivity, milliseconds: Int, _ s: inout State) -> TurnOutcome? {
        guard !s.ended else { return nil }
        if Self.timesOut(after: speech, milliseconds: milliseconds, s) {
            s.awaitingReply = false
            return .noReply
        }
        if speech == .started {
            if s.overlapNext, s.overlapHandler != nil, s.overlap == nil {
                s.overlap = Overlap(awaitingReply: s.awaitingReply, waitedMilliseconds: s.waitedMilliseconds)
            }
            s.overlapNext = false
            s.awaitingReply = false
            s.speechStarts += 1
        }
        if s.awaitingReply { s.waitedMilliseconds += milliseconds }
        defer {
            s.recent += samples
            if s.recent.count > Self.preRollSamples { s.recent.removeFirst(s.recent.count - Self.preRollSamples) }
        }
        if speech == .started, !s.listening { s.utterance = s.recent; s.pause = [] }
        if speech == .started, s.listening { s.utterance += s.pause; s.pause = [] }   // a pause inside the turn keeps what was said
        let next = Self.turn(after: speech, milliseconds: milliseconds, s, endOfTurn: window(s))
        s.listening = next.listening
        s.trailingSilence = next.trailingSilence
        guard s.listening || next.ends else { return nil }
        if s.utterance.count + s.pause.count < Self.maxUtteranceSamples {
            if next.trailingSilence == nil, !next.ends { s.utterance += samples } else { s.pause += samples }
        }
        if speech == .ended, s.listening, !next.ends {
            s.speculation = Speculation(speechStarts: s.speechStarts)
            return .speechEnded(s.utterance, speechStarts: s.speechStarts)
        }
        guard next.ends else { return nil }
        defer { s.utterance = []; s.pause = []; s.speculation = nil }
        // Never while the words up to the speech end are still being transcribed (the window is
        // theirs to set): the turn ends on them.
        if let speculation = s.speculation, speculation.speechStarts == s.speechStarts, let heard = speculation.heard {
            return .transcribed(heard, transcribing: speculation.transcribing)
        }
        return .utterance(s.utterance)
    }

    public func interrupt(item: String, playedMilliseconds: Int) async {
        // Each utterance is synthesized whole and the session already dropped its unplayed audio;
        // the dialogue simply waits for what the caller says.
    }

    public func close(reason: String) async {
        let closing = state.withLock { s -> String? in
            guard !s.ended else { return nil }
            s.ended = true
            return s.dialogue.context.closing
        }
        guard let closing else { return }
        await say(.close(text: closing))
    }

    public func stop() async -> TaskTracker {
        let tracker = state.withLock { s -> TaskTracker in s.ended = true; return s.dialogue.tracker }
        events.finish()
        heard.finish()
        replies.finish()
        return tracker
    }

    public func transferEnded(_ outcome: TransferOutcome) async {
        guard !outcome.leftTheCall else { return }
        await say(state.withLock { $0.dialogue.transferEnded(outcome) })
    }

    /// The FAQ row that answers `question`, if one clears the policy. The search is recorded as
    /// the model engines' `search_knowledge` calls are: in the transcript, the report and `/metrics`.
    func searchFAQ(_ question: String) async -> KnowledgeHit? {
        guard let knowledge else { return nil }
        let collections = state.withLock { $0.dialogue.context.knowledge }
        let started = VirtualTimeExecutor.now
        let arguments = JSONValue.object(["query": .string(question)]).serialized
        var record = ToolCallRecord(tool: KnowledgeSearchTool.name, arguments: arguments, status: .ok, milliseconds: 0)
        var answer: KnowledgeHit?
        await ToolCallRecord.traced(tool: KnowledgeSearchTool.name, {
            do {
                answer = answerPolicy.answer(from: try await knowledge.searchKnowledge(question, in: collections, limit: KnowledgeSearchTool.resultLimit))
            } catch {
                record.status = .failed
                record.error = "the knowledge base could not be searched: \(error)"
            }
        }, status: { _ in record.status })
        record.milliseconds = Int(started.duration(to: VirtualTimeExecutor.now) / .milliseconds(1))
        await events.emit(.toolCalled(record))
        return answer
    }

    /// On the recognizer's worker lanes; every transcription is metered (the speculative ones too).
    /// A failure is reported and heard as silence: the dialogue asks again.
    /// `wanted`: whether the words are still wanted, asked as the recognizer goes (`SpeechRecognizer`).
    func transcribe(_ samples: [Int16], while wanted: @escaping @Sendable () -> Bool = { true }) async -> Transcript {
        meter.add { $0.sttSeconds += Double(samples.count) / Double(MoonshineTranscriber.sampleRate) }
        do {
            let (expected, hungUp, ear) = state.withLock { s in (recognitionBias > 0 ? s.dialogue.expectedWords : [], s.hungUp, s.ear) }
            // After the hang-up nobody is on the line: live calls' words go first on the recognizer's lanes.
            return try await BlockingWorkPool.$urgency.withValue(hungUp ? .whenIdle : .now) {
                try await ear.transcribe(pcm16k: samples, expecting: expected, bias: recognitionBias, while: wanted)
            }
        } catch is CancellationError {
            return Transcript(text: "", confidence: 0)   // the call ended, or the caller spoke again: nobody will read the words
        } catch {
            await events.emit(.error(message: "speech recognition: \(error)", fatal: false))
            return Transcript(text: "", confidence: 0)
        }
    }
}
