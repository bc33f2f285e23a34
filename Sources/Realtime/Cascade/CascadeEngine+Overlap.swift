import Foundation
import Pipeline

/// Speech over the agent (the session's `judgeOverlaps`), judged by the recognizer's words: words
/// that take the turn cut the agent as soon as Deepgram's interim shows them, and the utterance is
/// a turn; a backchannel, or nothing heard, is no turn — no reply is asked for, and the session
/// plays the agent on.
extension CascadeEngine {
    /// Deepgram's final words come after its endpointing (300 ms) and the trip back.
    static let unheardOverlap: Duration = .milliseconds(1500)

    public func judgeOverlaps(reporting handler: (@Sendable (OverlapVerdict) async -> Void)?) -> Bool {
        state.withLock { $0.overlap.handler = handler }
        return true
    }

    public func callerSpeaksOverAgent() {
        state.withLock { $0.overlap.mark() }
    }

    /// The words so far of speech over the agent: enough to take the turn, and the agent is cut now.
    func judgeOverlapSoFar(_ text: String) async {
        let report = state.withLock { s -> OverlapWatch.Handler? in
            guard s.overlap.isPending, OverlapVerdict.judging(text, minimumWords: settings.overlapMinimumWords) == .interruption else { return nil }
            return s.overlap.settle()
        }
        await report?(.interruption)
    }

    /// An utterance's final words: false when it began over the agent and was not a turn.
    func overlapIsTurn(_ text: String) async -> Bool {
        let judged = state.withLock { s -> (OverlapVerdict, OverlapWatch.Handler?)? in
            guard s.overlap.isPending else { return nil }
            return (OverlapVerdict.judging(text, minimumWords: settings.overlapMinimumWords), s.overlap.settle())
        }
        guard let (verdict, handler) = judged else { return true }
        if verdict != .interruption { forgetEarlyWords() }
        await handler?(verdict)
        return verdict == .interruption
    }

    /// Our VAD's frame: speech marked over the agent that the recognizer never heard held no words.
    func overlapActivity(_ activity: SpeechActivity) async {
        await state.withLock { $0.overlap.unheard(activity) }?(.noWords)
    }
}
