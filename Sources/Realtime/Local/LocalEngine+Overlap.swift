/// Speech over the agent (the session's `judgeOverlaps`): the local engine transcribes it as any
/// turn, and its words decide whether it was one.
extension LocalEngine {
    public func judgeOverlaps(reporting handler: (@Sendable (OverlapVerdict) async -> Void)?) -> Bool {
        state.withLock { $0.overlapHandler = handler }
        return true
    }

    public func callerSpeaksOverAgent() {
        state.withLock { $0.overlapNext = true }
    }

    /// The words of speech that began over the agent: a turn (the session cuts the agent, the
    /// turn goes on), or not one — a backchannel or no words — and then the turn is dropped as if
    /// never begun (the wait for a reply it paused goes on) and the session plays the agent on.
    /// True when it was not a turn. A backchannel is only settled when the turn is over
    /// (`turnOver`): "Yes, … I will" goes on past its first pause, and is an answer.
    /// `speechStarts`: the words are stale if the caller spoke again.
    func settleOverlap(_ text: String, turnOver: Bool, speechStarts: Int? = nil) async -> Bool {
        let settled = state.withLock { s -> (OverlapVerdict, (@Sendable (OverlapVerdict) async -> Void)?)? in
            guard let overlap = s.overlap, speechStarts == nil || speechStarts == s.speechStarts else { return nil }
            let verdict = OverlapVerdict.judging(text, minimumWords: overlapMinimumWords)
            if case .backchannel = verdict, !turnOver { return nil }
            s.overlap = nil
            if verdict != .interruption {
                s.dropTurn()
                s.awaitingReply = overlap.awaitingReply
                s.waitedMilliseconds = overlap.waitedMilliseconds
            }
            return (verdict, s.overlapHandler)
        }
        guard let (verdict, handler) = settled else { return false }
        await handler?(verdict)
        return verdict != .interruption
    }
}
