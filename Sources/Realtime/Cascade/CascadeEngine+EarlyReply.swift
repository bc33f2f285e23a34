import Dialogue
import Foundation
import Pipeline

/// Replies started early: once the caller has stopped speaking (our VAD) and the recognizer's
/// transcript of it has settled (a fixed segment, or the same interim twice), the model is asked
/// while the recognizer's endpointing is still deciding that the turn is over. When the final
/// transcript is the same words, the turn takes that reply — the model's time to first token is
/// mostly spent by then; when it differs, the early reply is dropped before any of it was spoken.
/// Not for speech over the agent until its words are judged (`+Overlap`): "mm-hmm" gets no reply.
extension CascadeEngine {
    /// What the early-reply rule knows between the recognizer's results and the final transcript.
    struct EarlyReplyState {
        /// The words so far (fixed segments and the latest interim).
        var candidate = ""
        /// The candidate is not expected to change: a fixed segment, or an interim seen twice.
        var settled = false
        /// Our VAD says the caller is not speaking.
        var callerSilent = true
        /// The request made for `candidate`, not yet taken or dropped.
        var request: ReplyRequest?
        /// The recognizer gave the utterance's final words: its turn is on its way and asks the
        /// model itself (until new words come).
        var finalHeard = false
    }

    /// Owned by `start()`: runs each early request, one at a time (a newer one drops the one before).
    func runEarlyReplies() async {
        for await request in earlyRequests {
            await request.run(chat: chat, tools: { self.tools }, meter: meter)
        }
    }

    /// The recognizer's words so far: `fixed` when they will not change.
    func heardSoFar(_ text: String, fixed: Bool) {
        state.withLock { s in
            s.early.settled = fixed || s.early.candidate == text
            s.early.candidate = text
            s.early.finalHeard = false
        }
        considerEarlyReply()
    }

    /// The recognizer's final words for the utterance: nothing more is asked early for it.
    func finalWordsHeard() {
        state.withLock { $0.early.finalHeard = true }
    }

    /// Our VAD's view of the caller, frame by frame.
    func callerActivity(_ activity: SpeechActivity) {
        switch activity {
        case .started:
            // Speaking again: the words will change, so what was asked for them is wasted.
            state.withLock { $0.early.callerSilent = false }
            dropEarlyReply()
        case .ended:
            state.withLock { $0.early.callerSilent = true }
            considerEarlyReply()
        case .speech, .silence:
            break
        }
    }

    /// Asks the model now if the rule's conditions hold: replies started early are on, the agent is
    /// not in a turn, the caller is silent and the words have settled into something new.
    func considerEarlyReply() {
        guard settings.earlyReplies else { return }
        let (started, replaced) = state.withLock { s -> (ReplyRequest?, ReplyRequest?) in
            let words = s.early.candidate
            guard !s.ended, s.currentTurn == nil, s.transferCallID == nil, !s.overlap.isPending, s.early.callerSilent, s.early.settled, !s.early.finalHeard, !words.isEmpty,
                  s.early.request?.heard != words else { return (nil, nil) }
            let request = ReplyRequest(messages: s.messages + [["role": "user", "content": words]], heard: words, revision: s.revision)
            defer { s.early.request = request }
            return (request, s.early.request)
        }
        guard let started else { return }
        if let replaced { drop(replaced) }
        meter.add { $0.countEarlyReply { $0.started += 1 } }
        earlyRequestSink.yield(started)
    }

    /// The agent's turn is over. Words that settled while it was at work (a greeting slow under
    /// load) were not asked about then; they are now, as if they had settled at this moment —
    /// before, such a caller's reply waited for the recognizer's endpointing — unless their final
    /// words are in already (their turn asks).
    func turnEnded() {
        state.withLock { $0.currentTurn = nil }
        considerEarlyReply()
    }

    /// The final transcript is in: the early reply made for these words, asked on the history as it
    /// still is, or nil (and any other early reply dropped).
    func takeEarlyReply(for text: String) -> ReplyRequest? {
        let (request, revision) = state.withLock { s -> (ReplyRequest?, Int) in
            defer { s.early = EarlyReplyState(callerSilent: s.early.callerSilent) }
            return (s.early.request, s.revision)
        }
        guard let request else { return nil }
        guard request.revision == revision, let heard = request.heard, ReplyInterpreter.words(heard) == ReplyInterpreter.words(text) else {
            drop(request)
            return nil
        }
        meter.add { $0.countEarlyReply { $0.used += 1 } }
        return request
    }

    /// Words that were no turn (a backchannel over the agent): their early reply is dropped and the
    /// words forgotten, so the end of the agent's turn does not ask about them (`turnEnded`).
    func forgetEarlyWords() {
        let request = state.withLock { s -> ReplyRequest? in
            defer { s.early = EarlyReplyState(callerSilent: s.early.callerSilent) }
            return s.early.request
        }
        if let request { drop(request) }
    }

    /// Drops the early reply waiting to be taken, if there is one.
    func dropEarlyReply() {
        if let request = state.withLock({ s in defer { s.early.request = nil }; return s.early.request }) { drop(request) }
    }

    func drop(_ request: ReplyRequest) {
        request.drop()
        meter.add { $0.countEarlyReply { $0.dropped += 1 } }
    }
}
