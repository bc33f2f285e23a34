/// Decides when the caller has interrupted the agent, and what to do about it.
///
/// When the caller has been speaking for `minimumSpeechMilliseconds` while agent audio is playing,
/// it asks — once per speech segment — to flush every outbound queue, to `clear` the leg (audio
/// already handed to the provider), and to tell the engine how much of its current item was
/// heard. The engine is only told when some of that item was actually played.
///
/// With an engine that judges speech over the agent by its words (`holdMilliseconds` set), a
/// segment that starts while the agent talks is an *overlap*: the engine is told at its onset, and
/// at `holdMilliseconds` of voiced frames the agent is held — paused, nothing dropped — rather than cut. The engine's
/// verdict then cuts it (words), or plays it on (a backchannel, a cough). Shorter speech never
/// stops the agent: "mm-hmm" is over before the hold.
public struct BargeInController: Sendable {
    public enum Action: Sendable, Equatable {
        case flushOutbound
        case clearLeg
        case interruptEngine(item: String, playedMilliseconds: Int)
        /// The caller started speaking while the agent talks: the engine judges this segment.
        case overlapStarted
        /// Pause the agent's audio where it is until the engine's verdict.
        case holdOutbound
    }

    public var minimumSpeechMilliseconds: Int
    public var holdMilliseconds: Int?
    private var firedThisSegment = false
    private var overlapping = false
    /// Speech-like time in this segment: the VAD's segment also counts its hangover (200 ms of
    /// silence before it says speech ended), which would make every "okay" long enough to hold.
    private var voicedMilliseconds = 0

    public init(minimumSpeechMilliseconds: Int = 200, holdMilliseconds: Int? = nil) {
        self.minimumSpeechMilliseconds = minimumSpeechMilliseconds
        self.holdMilliseconds = holdMilliseconds
    }

    public mutating func process(_ decision: VoiceActivityDetector.Decision, playback: PlaybackTracker.Snapshot) -> [Action] {
        // A key's tone is a press, not words: a menu talking over it must not cut it short.
        var playback = playback
        if playback.playsKeyTone { playback.pendingMilliseconds = 0 }
        guard decision.isSpeech else {
            firedThisSegment = false
            overlapping = false
            voicedMilliseconds = 0
            return []
        }
        if decision.frameIsSpeechLike { voicedMilliseconds += AudioFrame.durationMilliseconds }
        var actions: [Action] = []
        if holdMilliseconds != nil, decision.event == .speechStarted, playback.isPlaying {
            overlapping = true
            actions.append(.overlapStarted)
        }
        guard !firedThisSegment, playback.isPlaying else { return actions }
        if let hold = holdMilliseconds, overlapping {
            guard voicedMilliseconds >= hold else { return actions }
            firedThisSegment = true
            return actions + [.holdOutbound]
        }
        guard decision.speechMilliseconds >= minimumSpeechMilliseconds else { return actions }
        firedThisSegment = true
        return actions + Self.actions(interrupting: playback)
    }

    /// What stopping the agent takes: flush, clear the leg, and — when some of the current item
    /// was played — tell the engine how much was heard.
    public static func actions(interrupting playback: PlaybackTracker.Snapshot) -> [Action] {
        var actions: [Action] = [.flushOutbound, .clearLeg]
        if let item = playback.currentItem, playback.currentItemPlayedMilliseconds > 0 {
            actions.append(.interruptEngine(item: item, playedMilliseconds: playback.currentItemHeardMilliseconds))
        }
        return actions
    }
}
