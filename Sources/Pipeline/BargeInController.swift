/// Decides when the caller has interrupted the agent, and what to do about it.
///
/// When the caller has been speaking for `minimumSpeechMilliseconds` while agent audio is playing,
/// it asks — once per speech segment — to flush every outbound queue, to `clear` the leg (audio
/// already handed to the provider), and to tell the engine how much of its current item was
/// heard. The engine is only told when some of that item was actually played.
public struct BargeInController: Sendable {
    public enum Action: Sendable, Equatable {
        case flushOutbound
        case clearLeg
        case interruptEngine(item: String, playedMilliseconds: Int)
    }

    public var minimumSpeechMilliseconds: Int
    private var firedThisSegment = false

    public init(minimumSpeechMilliseconds: Int = 200) {
        self.minimumSpeechMilliseconds = minimumSpeechMilliseconds
    }

    public mutating func process(_ decision: VoiceActivityDetector.Decision, playback: PlaybackTracker.Snapshot) -> [Action] {
        guard decision.isSpeech else {
            firedThisSegment = false
            return []
        }
        guard !firedThisSegment, decision.speechMilliseconds >= minimumSpeechMilliseconds, playback.isPlaying else {
            return []
        }
        firedThisSegment = true
        return Self.actions(interrupting: playback)
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
