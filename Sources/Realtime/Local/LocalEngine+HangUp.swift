import Foundation

/// A caller who answers and hangs up at once ("Yes, I'll be there." — click) has answered. Their
/// turn is not over when the call ends — the end-of-turn window is still open, or its words are
/// still being transcribed — so the engine finishes it first: what is still to be heard is heard,
/// taken by the dialogue as any answer is (the same floors, the tracker updated), kept for the
/// transcript, and nothing is said back. Until 29 Nov those words were dropped and the question
/// stored unanswered.
extension LocalEngine {
    /// Ends the turn in progress, waits until every turn before the hang-up has been heard, and
    /// returns the words heard after it. Cancelled (the session's bound), it returns what it has.
    public func callEnded() async -> [String] {
        let (unfinished, running) = state.withLock { s -> (TurnOutcome?, Bool) in
            guard !s.hungUp else { return (nil, false) }
            s.hungUp = true
            defer { s.ended = true }   // the caller's frames stop here: nothing more is taken
            guard !s.ended, s.listening, !s.utterance.isEmpty else { return (nil, s.running) }
            defer { s.dropTurn() }
            if let speculation = s.speculation, speculation.speechStarts == s.speechStarts {
                if let heard = speculation.heard { return (.transcribed(heard, transcribing: speculation.transcribing), s.running) }
                // Its words are still being made from this very audio (nothing said since its speech
                // end): they are the last words. Transcribed again, the same seconds of audio took a
                // recognizer lane twice while live calls waited (30 Nov, `make bench`'s barge-in).
                s.lastWordsSpeculation = speculation.speechStarts
                return (nil, s.running)
            }
            return (.utterance(s.utterance), s.running)
        }
        guard running else { return state.withLock { $0.lastWords } }   // nobody to hear it: start() is not running
        let (done, marker) = AsyncStream<Void>.makeStream()
        if let unfinished { _ = await heard.send(unfinished) }
        if await !heard.send(.hangUp(marker)) { marker.finish() }
        for await _ in done {}   // ends when the replying task reaches the marker, or on cancellation
        return state.withLock { $0.lastWords }
    }

    /// The words of the speech end `starts`, transcribed after the hang-up, when they are the caller's last.
    func keptAsLastWords(_ heard: Transcript, speechStarts starts: Int) -> Bool {
        guard state.withLock({ $0.hungUp && $0.lastWordsSpeculation == starts }) else { return false }
        return keptAfterHangUp(heard)
    }

    /// After the hang-up: `heard` is taken by the dialogue as an answer (a question to look up
    /// is not: nobody is there for its answer) and its words kept for the transcript, or, with
    /// `inTranscript` false (keys), only taken. False before the hang-up: the caller's turn goes
    /// on as usual.
    func keptAfterHangUp(_ heard: Transcript, inTranscript: Bool = true) -> Bool {
        state.withLock { s in
            guard s.hungUp else { return false }
            let text = heard.text
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return true }
            if inTranscript { s.lastWords.append(text) }
            s.takeLanguage(of: heard)
            if !s.dialogue.wantsLookup(text) { s.dialogue.callerHungUp(having: text, confidence: heard.confidence) }
            return true
        }
    }
}
