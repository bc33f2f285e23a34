import Pipeline
import Realtime

/// One agent turn as the caller lived it: each step in milliseconds after the end of their speech.
public struct TurnTiming: Sendable, Codable, Equatable {
    public var turn: Int
    /// When the caller stopped speaking (the VAD's offset), seconds after the call was answered.
    public var speechEndedAt: Double
    /// The engine decided the turn was over (the offline engine; nil where the provider decides).
    public var turnEndedMs: Int?
    /// The caller's words as text (the final transcript reached the session).
    public var transcriptMs: Int?
    /// The reply began: the LLM's first token (cascade), the scripted reply chosen (local).
    public var replyStartedMs: Int?
    /// The first synthesized audio of the reply reached the session.
    public var firstAudioMs: Int?
    /// The reply's first frame went to the leg (on the wire at its next 20 ms tick).
    public var firstFrameMs: Int?
    /// Each provider's time to first byte in this turn (`stt`, `llm`, `tts`).
    public var firstByteMs: [String: Int] = [:]
    /// The caller talked over the reply; `heardMs` of its `generatedMs` were played.
    public var interrupted = false
    public var heardMs: Int?
    public var generatedMs: Int?

    enum CodingKeys: String, CodingKey {
        case turn, interrupted
        case speechEndedAt = "speech_ended_at", turnEndedMs = "turn_ended_ms", transcriptMs = "transcript_ms", replyStartedMs = "reply_started_ms"
        case firstAudioMs = "first_audio_ms", firstFrameMs = "first_frame_ms", firstByteMs = "first_byte_ms"
        case heardMs = "heard_ms", generatedMs = "generated_ms"
    }
}

/// The caller talked over the agent: `heardMs` of the item's `generatedMs` were played.
public struct Interruption: Sendable, Codable, Equatable {
    public var item: String
    /// Seconds after the call was answered.
    public var at: Double
    public var heardMs: Int
    public var generatedMs: Int
    /// The turn whose reply was cut, if it was a reply (not the greeting).
    public var turn: Int?

    enum CodingKeys: String, CodingKey { case item, at, turn, heardMs = "heard_ms", generatedMs = "generated_ms" }
}

/// Builds the turns from what the session sees: the VAD's speech end opens a turn, the engine's
/// transcript and milestones fill it, the reply's first audio closes it (its latency), its
/// first frame to the leg and a barge-in over it are added to it afterwards.
struct TurnTimeline {
    private(set) var turns: [TurnTiming] = []
    private(set) var interruptions: [Interruption] = []
    private var open: (timing: TurnTiming, endedAt: ContinuousClock.Instant)?
    /// The speech end of each closed turn, by its reply's item.
    private var replies: [String: (index: Int, endedAt: ContinuousClock.Instant)] = [:]
    private let answeredAt: ContinuousClock.Instant

    init(answeredAt: ContinuousClock.Instant) { self.answeredAt = answeredAt }

    /// A new speech end replaces a turn that got no reply yet: the caller went on talking.
    mutating func speechEnded(at now: ContinuousClock.Instant) {
        let timing = TurnTiming(turn: turns.count + 1, speechEndedAt: answeredAt.duration(to: now).hundredthsOfSeconds)
        open = (timing, now)
    }

    /// The caller's transcript reached the session: the transcript step, unless the engine
    /// stamped it itself (`.transcribed`, earlier and so more exact).
    mutating func transcript(at now: ContinuousClock.Instant) {
        milestone(.transcribed, at: now)
    }

    mutating func milestone(_ milestone: EngineMilestone, at now: ContinuousClock.Instant) {
        guard let ended = open?.endedAt else { return }
        switch milestone {
        case .turnEnded:
            if open?.timing.turnEndedMs == nil { open?.timing.turnEndedMs = Self.ms(ended, now) }
        case .transcribed:
            if open?.timing.transcriptMs == nil { open?.timing.transcriptMs = Self.ms(ended, now) }
        case .replyStarted:
            if open?.timing.replyStartedMs == nil { open?.timing.replyStartedMs = Self.ms(ended, now) }
        case .firstByte(let provider, let milliseconds):
            if open?.timing.firstByteMs[provider] == nil { open?.timing.firstByteMs[provider] = milliseconds }
        }
    }

    /// The reply's first audio: the turn's latency (nil when no turn was open, e.g. the greeting).
    mutating func firstAudio(item: String, at now: ContinuousClock.Instant) -> Int? {
        guard let (opened, ended) = open else { return nil }
        var timing = opened
        open = nil
        let latency = Self.ms(ended, now)
        timing.firstAudioMs = latency
        replies[item] = (turns.count, ended)
        turns.append(timing)
        return latency
    }

    mutating func firstFrame(item: String, at now: ContinuousClock.Instant) {
        guard let (index, ended) = replies[item], turns[index].firstFrameMs == nil else { return }
        turns[index].firstFrameMs = Self.ms(ended, now)
    }

    mutating func interrupted(item: String, heardMilliseconds: Int, generatedMilliseconds: Int, at now: ContinuousClock.Instant) {
        let reply = replies[item]
        interruptions.append(Interruption(item: item, at: answeredAt.duration(to: now).hundredthsOfSeconds,
                                          heardMs: heardMilliseconds, generatedMs: generatedMilliseconds, turn: reply.map { turns[$0.index].turn }))
        guard let (index, _) = reply else { return }
        turns[index].interrupted = true
        turns[index].heardMs = heardMilliseconds
        turns[index].generatedMs = generatedMilliseconds
    }

    private static func ms(_ from: ContinuousClock.Instant, _ to: ContinuousClock.Instant) -> Int {
        Int(from.duration(to: to).totalMilliseconds.rounded())
    }
}
