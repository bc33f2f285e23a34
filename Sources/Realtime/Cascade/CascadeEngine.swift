import Dialogue
import Foundation
import Logging
import Pipeline
import Synchronization
import Tools

/// Streaming STT → LLM → TTS: Deepgram (or OpenAI transcription of each utterance the VAD ends)
/// hears; any OpenAI-compatible chat endpoint thinks, streamed, with tools; OpenAI speech (24 kHz
/// PCM) speaks — the first sentence goes to TTS while the model is still writing the rest.
/// Barge-in cancels the turn in flight, and with it its LLM and TTS requests.
///
/// `start()` owns everything for the call's life: the STT connection and the turn loop, one turn
/// at a time.
public final class CascadeEngine: ConversationEngine, TaskStateReporting {
    public struct Settings: Sendable {
        public enum STT: Sendable { case deepgram(baseURL: String, apiKey: String, model: String), openAI(model: String) }
        public var stt: STT
        public var llmBaseURL: String
        public var llmAPIKey: String?
        public var llmModel: String
        /// OpenAI audio endpoints (speech, and transcription when `stt` is `.openAI`).
        public var audioBaseURL: String
        public var audioAPIKey: String?
        public var ttsModel = "gpt-4o-mini-tts"
        public var ttsVoice = "alloy"
        /// Ask the model once the caller is silent and the recognizer's words have settled, before
        /// it calls the turn over (Deepgram); a reply for words that then change is dropped unheard.
        public var earlyReplies = true
        /// `barge_in.min_words`: fewer words over the agent than this (backchannels aside) do not cut it.
        public var overlapMinimumWords = 1
        /// With a model, an utterance the recognizer ends is judged before it is the turn (`+TurnModel`).
        public var turns = TurnDetector.pause

        public init(stt: STT, llmBaseURL: String, llmAPIKey: String?, llmModel: String, audioBaseURL: String, audioAPIKey: String?) {
            self.stt = stt
            self.llmBaseURL = llmBaseURL
            self.llmAPIKey = llmAPIKey
            self.llmModel = llmModel
            self.audioBaseURL = audioBaseURL
            self.audioAPIKey = audioAPIKey
        }
    }

    enum TurnInput: Sendable { case greet, heard(String), pressed(Character), transferEnded(callID: String, TransferOutcome), close(String) }

    public let inputFormat = EngineAudioFormat.muLaw
    public let outputFormat = EngineAudioFormat.pcm16(sampleRate: OpenAISpeech.sampleRate)
    public let events = BoundedQueue<EngineEvent>(capacity: 256, policy: .suspendProducer)
    let meter = UsageMeter()
    public var usage: EngineUsage { meter.usage }

    let settings: Settings
    let context: ConversationContext
    let logger: Logger
    let chat: ChatCompletionStream
    let speech: OpenAISpeech
    let state: Mutex<State>
    let inputs: AsyncStream<TurnInput>
    let inputSink: AsyncStream<TurnInput>.Continuation
    let deepgram: Mutex<DeepgramTranscriber?> = Mutex(nil)
    /// Early replies to run (`runEarlyReplies`): the newest only, as a newer one drops the one before.
    let earlyRequests: AsyncStream<ReplyRequest>
    let earlyRequestSink: AsyncStream<ReplyRequest>.Continuation
    /// Deadlines of turns the model held (`releaseHeldTurns`).
    let heldTurns: AsyncStream<ContinuousClock.Instant>
    let heldTurnSink: AsyncStream<ContinuousClock.Instant>.Continuation
    /// Runs the operator's tools (`context.tools`); nil: the call has none to run.
    let toolRunner: ToolRunner?

    struct State {
        var tracker: TaskTracker
        var messages: [[String: any Sendable]]
        /// Counts changes to `messages`: an early reply is taken only if asked on the history as it is.
        var revision = 0
        var early = EarlyReplyState()
        var overlap = OverlapWatch(unheardAfter: CascadeEngine.unheardOverlap)
        var currentTurn: Task<Void, Never>?
        var turnNumber = 0
        var aiTurns = 0
        var ended = false
        /// The `transfer_call` tool call waiting for the session's outcome.
        var transferCallID: String?
        /// OpenAI-transcription mode: the utterance the local VAD is collecting.
        var utterance: [UInt8] = []
        var listening = false
        var recent: [UInt8] = []
        var held = HeldTurn()
    }

    public init(context: ConversationContext, settings: Settings, tools: ToolRunner? = nil, logger: Logger = Logger(label: "cascade")) {
        self.context = context
        self.toolRunner = tools
        self.settings = settings
        self.logger = logger
        chat = ChatCompletionStream(baseURL: settings.llmBaseURL, apiKey: settings.llmAPIKey, model: settings.llmModel)
        speech = OpenAISpeech(baseURL: settings.audioBaseURL, apiKey: settings.audioAPIKey, model: settings.ttsModel, voice: settings.ttsVoice)
        state = Mutex(State(tracker: TaskTracker(context: context),
                            messages: [["role": "system", "content": PromptBuilder.instructions(for: context)]]))
        (inputs, inputSink) = AsyncStream.makeStream(of: TurnInput.self, bufferingPolicy: .bufferingOldest(16))
        (earlyRequests, earlyRequestSink) = AsyncStream.makeStream(of: ReplyRequest.self, bufferingPolicy: .bufferingNewest(1))
        (heldTurns, heldTurnSink) = AsyncStream.makeStream(of: ContinuousClock.Instant.self, bufferingPolicy: .bufferingNewest(1))
        if let first = beginFlow() { setInstructions(first) }
    }

    public func start() async throws {
        // Behind a known phone menu the greeting waits: the first words heard start the turns.
        if !context.followsMenuPath { inputSink.yield(.greet) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            if case .deepgram(let base, let key, let model) = settings.stt {
                let stt = DeepgramTranscriber(baseURL: base, apiKey: key, model: model, language: context.language, logger: logger) { [weak self] event in
                    guard let self else { return }
                    switch event {
                    case .speechStarted: self.events.sendUrgent(.speechStarted)
                    case .heardSoFar(let text, let fixed):
                        await self.judgeOverlapSoFar(text)
                        self.heardSoFar(text, fixed: fixed)
                    case .utterance(let text):
                        self.finalWordsHeard()
                        if await self.overlapIsTurn(text) { await self.utteranceEnded(text) }
                    }
                }
                deepgram.withLock { $0 = stt }
                group.addTask { try await stt.run() }
                group.addTask { await self.runEarlyReplies() }
            }
            group.addTask { await self.turnLoop() }
            if settings.turns.model != nil { group.addTask { await self.releaseHeldTurns() } }
            try await group.next()
            group.cancelAll()
        }
    }

    func turnLoop() async {
        for await input in inputs {
            if state.withLock({ $0.ended }) { break }
            let turn = Task { await self.runTurn(input) }
            state.withLock { $0.currentTurn = turn }
            await withTaskCancellationHandler { await turn.value } onCancel: { turn.cancel() }
            turnEnded()
            if Task.isCancelled { break }
        }
    }

    public func send(muLaw: [UInt8], speech activity: SpeechActivity) async {
        await overlapActivity(activity)
        keepForTurnModel(muLaw, activity)
        if let stt = deepgram.withLock({ $0 }) {
            callerActivity(activity)
            meter.add { $0.sttSeconds += Double(muLaw.count) / 8000 }   // streamed: every second is billed
            await stt.send(muLaw: muLaw)
            return
        }
        // OpenAI transcription: collect what the local VAD calls one utterance, then upload it.
        let finished = state.withLock { s -> [UInt8]? in
            switch activity {
            case .started:
                s.listening = true
                s.utterance = s.recent + muLaw
            case .speech:
                if s.listening, s.utterance.count < 8000 * 30 { s.utterance += muLaw }
            case .ended:
                guard s.listening else { return nil }
                s.listening = false
                defer { s.utterance = [] }
                return s.utterance + muLaw
            case .silence:
                s.recent = Array((s.recent + muLaw).suffix(2400))   // 300 ms pre-roll
            }
            return nil
        }
        guard let finished, case .openAI(let model) = settings.stt else { return }
        meter.add { $0.sttSeconds += Double(finished.count) / 8000 }
        let started = VirtualTimeExecutor.now
        let transcription = OpenAITranscription(baseURL: settings.audioBaseURL, apiKey: settings.audioAPIKey, model: model, language: context.language)
        do {
            let text = try await transcription.transcribe(muLaw: finished).trimmingCharacters(in: .whitespacesAndNewlines)
            await firstByte("stt", since: started)
            if await overlapIsTurn(text), !text.isEmpty { await utteranceEnded(text) }
        } catch {
            events.sendUrgent(.error(message: "transcription: \(error)", fatal: false))
        }
    }

    /// A key press is a turn of its own: the model reads it as a user line (its transcript line is the session's).
    public func transferEnded(_ outcome: TransferOutcome) async {
        guard !outcome.leftTheCall, let callID = state.withLock({ s in defer { s.transferCallID = nil }; return s.transferCallID }) else { return }
        inputSink.yield(.transferEnded(callID: callID, outcome))
    }

    public func dtmf(_ digit: Character) async {
        inputSink.yield(.pressed(digit))
    }

    public func send(samples: [Int16], speech activity: SpeechActivity) async {
        await send(muLaw: G711.encode(samples, law: .muLaw), speech: activity)
    }

    /// Barge-in: the turn in flight stops, cancelling its LLM and TTS requests.
    public func interrupt(item: String, playedMilliseconds: Int) async {
        state.withLock { $0.currentTurn }?.cancel()
    }

    public func close(reason: String) async {
        state.withLock { $0.currentTurn }?.cancel()
        inputSink.yield(.close(reason))
    }

    public func stop() async -> TaskTracker {
        let (turn, tracker) = state.withLock { s in
            s.ended = true
            return (s.currentTurn, s.tracker)
        }
        turn?.cancel()
        // CloseStream goes before the input ends: an ended input ends `start()`, whose group then
        // cancels the transcriber and closes its socket, so a CloseStream sent after could be lost.
        await deepgram.withLock({ $0 })?.finish()
        dropEarlyReply()
        earlyRequestSink.finish()
        inputSink.finish()
        events.finish()
        return tracker
    }
}
