import Synchronization

/// What an engine used on a call, for its cost estimate: the audio sent to speech recognition,
/// the text synthesized, the LLM's tokens, a realtime model's audio both ways.
public struct EngineUsage: Sendable, Codable, Equatable {
    public var sttSeconds = 0.0
    public var ttsCharacters = 0
    public var llmInputTokens = 0
    public var llmOutputTokens = 0
    /// True when the token counts are estimated from text length (≈ 4 characters a token),
    /// because the provider did not report them.
    public var llmTokensEstimated = false
    public var realtimeAudioSeconds = 0.0
    /// The cascade's replies started before the recognizer called the turn over; nil: none started.
    /// A dropped one's tokens are in the LLM counts above.
    public var earlyReplies: EarlyReplies?

    public struct EarlyReplies: Sendable, Codable, Equatable {
        public var started = 0
        /// Taken as the turn's reply: the final transcript was what the early request was made for.
        public var used = 0
        /// Discarded before any of their audio was sent (the caller's words turned out different).
        public var dropped = 0

        public init(started: Int = 0, used: Int = 0, dropped: Int = 0) {
            self.started = started
            self.used = used
            self.dropped = dropped
        }
    }

    public init() {}

    enum CodingKeys: String, CodingKey {
        case sttSeconds = "stt_seconds", ttsCharacters = "tts_characters"
        case llmInputTokens = "llm_input_tokens", llmOutputTokens = "llm_output_tokens"
        case llmTokensEstimated = "llm_tokens_estimated", realtimeAudioSeconds = "realtime_audio_seconds"
        case earlyReplies = "early_replies"
    }

    /// Counts an early reply's fate.
    public mutating func countEarlyReply(_ change: (inout EarlyReplies) -> Void) {
        var counts = earlyReplies ?? EarlyReplies()
        change(&counts)
        earlyReplies = counts
    }

    /// Tokens of text by the usual rule of thumb (≈ 4 characters a token), where a provider
    /// reports none.
    public static func estimatedTokens(characters: Int) -> Int { (characters + 3) / 4 }
}

/// An engine's usage, added to as the call goes (from any task).
public final class UsageMeter: Sendable {
    private let state = Mutex(EngineUsage())

    public init() {}

    public func add(_ change: (inout EngineUsage) -> Void) { state.withLock { change(&$0) } }

    public var usage: EngineUsage { state.withLock { $0 } }
}

/// A step of an agent turn that the session cannot see from the audio alone.
public enum EngineMilestone: Sendable, Equatable {
    /// The engine decided the caller's turn is over (the offline engine's end-of-turn window and
    /// model); an engine whose provider decides it, in its transcript, does not say it apart.
    case turnEnded
    /// The caller's words are text (stamped by the engine, ahead of its transcript event).
    case transcribed
    /// The reply began: the LLM's first token (cascade), the scripted reply chosen (local).
    case replyStarted
    /// A provider's time to first byte in this turn: `stt`, `llm`, `tts`.
    case firstByte(provider: String, milliseconds: Int)
}
