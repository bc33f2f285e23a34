import Dialogue
import Pipeline
import Tools

/// Audio as an engine takes or gives it.
public enum EngineAudioFormat: Sendable, Equatable {
    /// 16-bit mono PCM at this rate.
    case pcm16(sampleRate: Int)
    /// G.711 μ-law at 8 kHz: passes straight through to a phone leg, no transcoding.
    case muLaw
}

/// What an engine reports. Audio comes in items (one agent utterance or response); the session
/// plays them, tracks how much of each was heard, and tells the engine on barge-in.
public enum EngineEvent: Sendable, Equatable {
    /// Agent audio for `item`, in the engine's output format.
    case audio(item: String, samples: [Int16])
    case audioBytes(item: String, bytes: [UInt8])
    /// No more audio will come for `item`.
    case audioDone(item: String)
    /// A transcript line. `item` ties agent text to its audio.
    case transcript(speaker: Speaker, text: String, item: String?)
    /// The engine itself heard the caller start speaking (server-side VAD): barge-in.
    case speechStarted
    /// Drop these items' audio, queued or playing (a media-stream bot's `clear`): the engine
    /// decided the barge-in itself.
    case clearAudio(items: [String])
    case taskState(TaskTracker)
    /// End the call once `afterItem` (if any) has played.
    case endCall(reason: String, afterItem: String?)
    /// Hand the caller to a person (the call's transfer target) once `afterItem` has played; the
    /// session reports how it went with `transferEnded`.
    case transfer(reason: String, afterItem: String?)
    /// A problem; `fatal` ends the call with the partial result.
    case error(message: String, fatal: Bool)
    /// A step of the current turn, for the call's per-turn timeline.
    case milestone(EngineMilestone, at: ContinuousClock.Instant)
    /// One of the operator's tools was called: for the transcript and the report.
    case toolCalled(ToolCallRecord)
    /// Press these keys on the call (a phone menu's option): RFC 4733 where the leg carries it,
    /// else as tones in the agent's audio.
    case sendKeys(String)
}

/// One conversation engine behind a call: audio in, events out.
///
/// The session feeds caller audio (with the pipeline's VAD decision), reads `events`, tells the
/// engine how much of an interrupted item was actually played, and finally asks for the result.
public protocol ConversationEngine: Sendable {
    var inputFormat: EngineAudioFormat { get }
    var outputFormat: EngineAudioFormat { get }
    /// Bounded: an engine faster than real time waits here for the session (backpressure);
    /// speech-started and fatal errors go in its urgent lane and overtake queued audio.
    var events: BoundedQueue<EngineEvent> { get }

    /// Connects (remote engines) and starts the conversation (the greeting); an engine with work
    /// of its own for the call (the local engine's hearing and replying, the cascade's turns) runs
    /// it here until the session cancels this task.
    func start() async throws
    /// Caller audio, 20 ms at a time, with the local VAD's view of it.
    func send(samples: [Int16], speech: SpeechActivity) async
    func send(muLaw: [UInt8], speech: SpeechActivity) async
    /// The same as `send(samples:speech:)` when it can be done without waiting — from the socket's
    /// event loop, with no task switch — and false, having done nothing (`samples` not called),
    /// when it cannot. Engines whose input is itself I/O keep the default: always false.
    func sendNow(speech: SpeechActivity, samples: () -> [Int16]) -> Bool
    /// Whether the caller talking over the agent interrupts it (false for loopback, which plays
    /// the caller back while they talk).
    var allowsBargeIn: Bool { get }
    /// What the engine has used so far on this call (for the cost estimate).
    var usage: EngineUsage { get }
    /// For engines whose reply to a caller frame is ready at once (loopback): the session's way
    /// to play it where the frame arrived, with no task switch. The handler returns false when it
    /// cannot take the event now; the engine then queues it to `events` as usual. Set nil when done.
    func setImmediateOutput(_ handler: (@Sendable (EngineEvent) -> Bool)?)
    /// The caller barged in: `playedMilliseconds` of `item` were heard; drop the rest.
    func interrupt(item: String, playedMilliseconds: Int) async
    /// Engines that judge the caller's speech over the agent by its words take `handler` (nil:
    /// done) and return true; they call it once per overlap, when the words are known, from a
    /// task that is never behind queued events, which a held agent does not drain.
    func judgeOverlaps(reporting handler: (@Sendable (OverlapVerdict) async -> Void)?) -> Bool
    /// The caller's next speech segment starts while the agent is talking: an overlap to judge.
    func callerSpeaksOverAgent()
    /// Wrap up now (call duration limit, operator cancel): a closing line if the engine has
    /// one, then `endCall`.
    func close(reason: String) async
    /// Every frame of `item` has been played to the caller (its last mark came back).
    func itemPlayed(_ item: String) async
    /// The caller pressed a key (RFC 4733 event, in-band tone or the stream's `dtmf`).
    func dtmf(_ digit: Character) async
    /// The call is over (either side hung up); the call's tasks, `start()` among them, are
    /// cancelled next. A remote engine tells its peer here. Returns the caller's words the engine
    /// heard only now, for the transcript — a turn the hang-up cut short (`LocalEngine`); what
    /// they answered is in `stop()`'s tracker. The session bounds the wait.
    func callEnded() async -> [String]
    /// A transfer this engine asked for did not reach anyone: the agent has the caller back and says so.
    func transferEnded(_ outcome: TransferOutcome) async
    /// Ends the conversation and returns what it gathered.
    func stop() async -> TaskTracker
}

/// The pipeline's voice-activity view of one frame, as engines need it.
public enum SpeechActivity: Sendable, Equatable {
    case silence
    case speech
    case started
    case ended
}

extension ConversationEngine {
    public func send(muLaw: [UInt8], speech: SpeechActivity) async {}

    public func sendNow(speech: SpeechActivity, samples: () -> [Int16]) -> Bool { false }

    public var allowsBargeIn: Bool { true }

    public var usage: EngineUsage { EngineUsage() }

    public func setImmediateOutput(_ handler: (@Sendable (EngineEvent) -> Bool)?) {}

    public func judgeOverlaps(reporting handler: (@Sendable (OverlapVerdict) async -> Void)?) -> Bool { false }

    public func callerSpeaksOverAgent() {}

    public func itemPlayed(_ item: String) async {}

    public func dtmf(_ digit: Character) async {}

    public func callEnded() async -> [String] { [] }

    public func transferEnded(_ outcome: TransferOutcome) async {}

    /// Reports a step of the current turn, stamped now.
    public func milestone(_ milestone: EngineMilestone) async {
        await events.emit(.milestone(milestone, at: VirtualTimeExecutor.now))
    }

    /// Reports a provider's time to first byte: its request went out at `start`, the first byte is here now.
    public func firstByte(_ provider: String, since start: ContinuousClock.Instant) async {
        await milestone(.firstByte(provider: provider, milliseconds: Int(start.duration(to: VirtualTimeExecutor.now).totalMilliseconds)))
    }

    public func close(reason: String) async {
        events.sendUrgent(.endCall(reason: reason, afterItem: nil))
    }

    /// The next event, or nil when the engine has finished.
    public func nextEvent() async -> EngineEvent? {
        while let message = await events.next() {
            if case .data(let event) = message { return event }
        }
        return nil
    }
}

extension EngineEvent {
    /// Events that must not wait behind queued audio. (`endCall` is not one: it ends the call
    /// after its item, whose audio is queued ahead of it.)
    public var isUrgent: Bool {
        switch self {
        case .speechStarted, .clearAudio: true
        case .error(_, let fatal): fatal
        default: false
        }
    }
}

extension BoundedQueue where Element == EngineEvent {
    /// Emits an engine event: urgent ones overtake, the rest wait their turn (and for space).
    public func emit(_ event: EngineEvent) async {
        if event.isUrgent { sendUrgent(event) } else { await send(event) }
    }
}
