import Dialogue
import Pipeline
import Synchronization

/// No AI: every caller frame goes straight back, through the whole pipeline — decode, VAD,
/// resample to the engine's rate and back, encode, pacing — with barge-in off. The like-for-like
/// check other voice frameworks' echo bots perform, and the trunk check operators know from
/// Asterisk's `Echo()`. (`EchoEngine` instead repeats each utterance once the caller stops.)
public final class LoopbackEngine: ConversationEngine {
    public let inputFormat: EngineAudioFormat
    public let outputFormat: EngineAudioFormat
    public let events = BoundedQueue<EngineEvent>(capacity: 64, policy: .suspendProducer)
    public var allowsBargeIn: Bool { false }
    static let item = "loopback"
    /// In a struct, not as the Mutex's own value: a closure stored directly in a generic container
    /// is re-wrapped in reabstraction thunks on every inout access (measured: the chain grew per
    /// frame until it took 40 % of the server).
    private struct Immediate { var play: (@Sendable (EngineEvent) -> Bool)? }
    private let immediate = Mutex(Immediate())

    /// 16 kHz by default, so the caller's audio really is resampled there and back.
    public init(sampleRate: Int = 16_000) {
        inputFormat = .pcm16(sampleRate: sampleRate)
        outputFormat = .pcm16(sampleRate: sampleRate)
    }

    public func start() async throws {}

    public func send(samples: [Int16], speech: SpeechActivity) async {
        await events.send(.audio(item: Self.item, samples: samples))
    }

    /// Takes the frame at once: played back where it arrived when the session can, else queued
    /// (false, having done nothing, when the queue is full).
    public func sendNow(speech: SpeechActivity, samples: () -> [Int16]) -> Bool {
        guard events.count < events.capacity else { return false }
        let event = EngineEvent.audio(item: Self.item, samples: samples())
        if let play = immediate.withLock({ $0.play }), play(event) { return true }
        return events.trySend(event)
    }

    public func setImmediateOutput(_ handler: (@Sendable (EngineEvent) -> Bool)?) {
        immediate.withLock { $0.play = handler }
    }

    public func interrupt(item: String, playedMilliseconds: Int) async {}

    public func stop() async -> TaskTracker {
        events.finish()
        return TaskTracker(questions: [])
    }
}
