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
    /// turn goes on), or not one — a backchannel, an aside that answers nothing (a backchannel as
    /// the recognizer misheard it: "Mm-hmm" as "Amend them"), or no words — and then the turn is dropped as if
    /// never begun (the wait for a reply it paused goes on) and the session plays the agent on.
    /// True when it was not a turn. A backchannel is only settled when the turn is over
    /// (`turnOver`): "Yes, … I will" goes on past its first pause, and is an answer.
    /// `speechStarts`: the caller has gone on from these words if it moved — then they settle the
    /// overlap only as a turn (what followed can only add to them); as anything else, the next
    /// speech end's words will.
    func settleOverlap(_ text: String, turnOver: Bool, speechStarts: Int? = nil) async -> Bool {
        let settled = state.withLock { s -> (OverlapVerdict, (@Sendable (OverlapVerdict) async -> Void)?)? in
            guard let overlap = s.overlap else { return nil }
            var verdict = OverlapVerdict.judging(text, minimumWords: overlapMinimumWords)
            // An aside is settled when its speech ends: it was long enough to hold the agent (a
            // short one is over before the hold), and a held agent's silence tells the caller its
            // turn is over — waiting for the end of the turn, the caller answered into the gap.
            let aside = verdict == .interruption && OverlapVerdict.isAside(text) && !s.dialogue.completesAnAnswer(text)
            if aside { verdict = .backchannel(text.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if let speechStarts, speechStarts != s.speechStarts, verdict != .interruption { return nil }
            if case .backchannel = verdict, !turnOver, !aside { return nil }
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
