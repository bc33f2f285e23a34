import Bridge
import Pipeline
import Realtime

/// The caller speaking while the agent talks, for engines that judge it by its words: the agent is
/// held (paused, nothing dropped) once the speech is long enough, and the verdict decides —
/// words cut it as a barge-in does; a backchannel or no words play it on from where it stopped.
extension CallSession {
    /// The caller side's barge-in rule: cut at 200 ms of speech over the agent, or — when the
    /// engine judges overlaps — hold at `overlapHoldMilliseconds` and let its verdict decide.
    /// Nil: the engine plays the caller back (loopback) and nothing cuts it.
    func bargeInController() -> BargeInController? {
        guard engine.allowsBargeIn else { return nil }
        let judges = engine.judgeOverlaps { [weak self] verdict in await self?.overlapJudged(verdict) }
        state.withLock { $0.engineJudgesOverlaps = judges }
        return BargeInController(holdMilliseconds: judges ? overlapHoldMilliseconds : nil)
    }

    /// The agent is held where it is until the verdict (a leg that cannot hold plays on).
    func holdAgent() {
        guard leg.holdPlayback(true) else { return }
        let now = clock.now
        state.withLock { $0.agentHeld = now }
    }

    func overlapJudged(_ verdict: OverlapVerdict) async {
        let now = clock.now
        let held = state.withLock { s -> Bool in
            guard let since = s.agentHeld else { return false }
            s.agentHeld = nil
            if verdict != .interruption, s.overlaps.heldMs.count < 50 { s.overlaps.heldMs.append(Int(since.duration(to: now).totalMilliseconds)) }
            return true
        }
        switch verdict {
        case .interruption:
            // Cut first (the held audio is dropped), then let the pacer run on the empty queue.
            await bargeIn()
            if held { leg.holdPlayback(false) }
        case .backchannel(let words):
            if held { leg.holdPlayback(false) }
            state.withLock { $0.overlaps.backchannel += 1 }
            await appendTranscript(speaker: .customer, text: "[Backchannel: \(words)]", item: nil, spoken: false)
        case .noWords:
            guard held else { return }
            leg.holdPlayback(false)
            state.withLock { $0.overlaps.resumed += 1 }
            logger.debug("speech over the agent held no words: playing on", metadata: ["call": "\(callID)"])
        }
    }
}
