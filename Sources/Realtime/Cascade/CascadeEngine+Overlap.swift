import Foundation
import Pipeline

/// Speech over the agent (the session's `judgeOverlaps`), judged by the recognizer's words: words
/// that take the turn cut the agent as soon as Deepgram's interim shows them, and the utterance is
/// a turn; a backchannel, or nothing heard, is no turn — no reply is asked for, and the session
/// plays the agent on.
extension CascadeEngine {
    struct OverlapState {
        var handler: (@Sendable (OverlapVerdict) async -> Void)?
        var mark = OverlapMark(unheardAfter: CascadeEngine.unheardOverlap)
    }

    /// Deepgram's final words come after its endpointing (300 ms) and the trip back.
    static let unheardOverlap: Duration = .milliseconds(1500)

    public func judgeOverlaps(reporting handler: (@Sendable (OverlapVerdict) async -> Void)?) -> Bool {
        state.withLock { $0.overlap.handler = handler }
        return true
    }

    public func callerSpeaksOverAgent() {
        state.withLock { $0.overlap.mark.mark() }
    }

    /// The words so far of speech over the agent: enough to take the turn, and the agent is cut now.
    func judgeOverlapSoFar(_ text: String) async {
        let handler = state.withLock { s -> (@Sendable (OverlapVerdict) async -> Void)?? in
            guard s.overlap.mark.isPending, OverlapVerdict.judging(text, minimumWords: settings.overlapMinimumWords) == .interruption else { return nil }
            s.overlap.mark.clear()
            return .some(s.overlap.handler)
        }
        if let handler { await handler?(.interruption) }
    }

    /// An utterance's final words: false when it began over the agent and was not a turn.
    func overlapIsTurn(_ text: String) async -> Bool {
        let judged = state.withLock { s -> (OverlapVerdict, (@Sendable (OverlapVerdict) async -> Void)?)? in
            guard s.overlap.mark.isPending else { return nil }
            s.overlap.mark.clear()
            return (OverlapVerdict.judging(text, minimumWords: settings.overlapMinimumWords), s.overlap.handler)
        }
        guard let (verdict, handler) = judged else { return true }
        if verdict != .interruption, let early = state.withLock({ s in defer { s.early.request = nil }; return s.early.request }) { drop(early) }
        await handler?(verdict)
        return verdict == .interruption
    }

    /// Our VAD's frame: speech marked over the agent that the recognizer never heard held no words.
    func overlapActivity(_ activity: SpeechActivity) async {
        let unheard = state.withLock { s -> (@Sendable (OverlapVerdict) async -> Void)?? in
            s.overlap.mark.heldNoWords(activity) ? .some(s.overlap.handler) : nil
        }
        if let unheard { await unheard?(.noWords) }
    }
}
