/// A call screener on an outbound call: its question gets who is calling and why, then the agent
/// waits — silent through the screener's "please hold" — for the person, who gets the opening
/// again; a screener that turns the call away, or a wait that runs out, ends it `screened_out`.
extension ScriptedDialogue {
    /// The screener's prompts the agent answers (a second one: the screener did not catch it).
    static let screenerIntroductionsMax = 2
    /// Replies not heard while waiting behind a screener before the agent gives up (each one is
    /// the engine's reply timeout: 8 s by default).
    static let screenerSilencesMax = 4

    /// The step `reply` calls for when a screener may be speaking — the callee's first words on an
    /// outbound call, or anything while the agent waits behind one; nil: a person's words, for the
    /// dialogue's usual reading.
    mutating func screenerStep(_ reply: String) -> Step? {
        let waiting = tracker.screener == .waiting
        guard waiting || (turns == 1 && context.call.direction == "outbound" && opening != nil) else { return nil }
        unplacedWordsAwaitingPerson = false
        switch CallScreener.heard(reply) {
        case .prompt?:
            screenerIntroductions += 1
            tracker.screener = .waiting
            guard screenerIntroductions <= Self.screenerIntroductionsMax else { return .listen(text: "") }
            return .listen(text: context.filled(phrases.introduction))
        case .announcement?:
            // Its question comes next (or, if none does, `screenerSilence` answers it anyway).
            tracker.screener = .waiting
            return .listen(text: "")
        case .holding?:
            return waiting ? .listen(text: "") : nil
        case .turnedAway?:
            guard waiting else { return nil }
            tracker.screener = .screenedOut
            return close(context.closing)
        case nil:
            guard waiting, let opening else { return nil }
            guard personGreets(reply) else { return .listen(text: "") }
            // The person: the opening again, its question counted once (the screener's hearing of it was not an asking).
            tracker.screener = .personReached
            return opening
        }
    }

    /// Why the dialogue ended the call, as `EngineEvent.endCall` says it: a screener that turned it
    /// away, a phone menu with no way through, or the conversation done.
    public var endReason: String {
        if tracker.screener == .screenedOut { return CallScreener.Passage.screenedOut.rawValue }
        if let state = tracker.menu?.state, [.noRoute, .timedOut].contains(state) { return state.rawValue }
        return "conversation finished"
    }

    /// Whether `reply` is for `screenerStep` (not a knowledge question): said while waiting behind a
    /// screener, or a screener's words where one may answer.
    func screenerMayHear(_ reply: String) -> Bool {
        tracker.screener == .waiting || (turns == 0 && context.call.direction == "outbound" && CallScreener.heard(reply) != nil)
    }

    /// Behind a screener or a menu, words that are not theirs: true when they are the person's
    /// greeting; else noted — the agent waits on, and a person who then waits for a reply
    /// (`personWaited`) was misheard, where a screener or a menu goes on or hangs up.
    mutating func personGreets(_ reply: String) -> Bool {
        unplacedWordsAwaitingPerson = !CallScreener.personGreets(reply)
        return !unplacedWordsAwaitingPerson
    }

    /// A silence after words that were not placed: someone spoke, then waited for an answer — the person.
    mutating func personWaited() -> Bool {
        defer { unplacedWordsAwaitingPerson = false }
        return unplacedWordsAwaitingPerson
    }

    /// No reply for the engine's timeout while waiting behind a screener: wait on, a few times.
    mutating func screenerSilence() -> Step? {
        guard tracker.screener == .waiting else { return nil }
        if let opening, personWaited() {
            tracker.screener = .personReached
            return opening
        }
        screenerSilences += 1
        if screenerIntroductions == 0 {   // it named itself but never asked
            screenerIntroductions += 1
            return .listen(text: context.filled(phrases.introduction))
        }
        guard screenerSilences >= Self.screenerSilencesMax else { return .listen(text: "") }
        tracker.screener = .screenedOut
        return close(context.closing)
    }
}
