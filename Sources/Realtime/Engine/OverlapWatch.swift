import Pipeline

/// What an engine that hears through a recognizer of its own (realtime, cascade) keeps about the
/// caller's speech over the agent: whom to tell the verdict (the session's `judgeOverlaps`), and
/// speech the session marked as starting over the agent (`callerSpeaksOverAgent`) until the
/// recognizer hears it — or until it is clear it will not: our VAD ended the speech and nothing
/// was heard `unheardAfter` later (a cough, a door, line noise past our VAD).
struct OverlapWatch {
    typealias Handler = @Sendable (OverlapVerdict) async -> Void

    var handler: Handler?
    private(set) var markedAt: ContinuousClock.Instant?
    private var endedAt: ContinuousClock.Instant?
    let unheardAfter: Duration

    init(unheardAfter: Duration) {
        self.unheardAfter = unheardAfter
    }

    var isPending: Bool { markedAt != nil }

    mutating func mark(at now: ContinuousClock.Instant = VirtualTimeExecutor.now) {
        markedAt = now
        endedAt = nil
    }

    /// The recognizer heard it (or it is otherwise settled).
    mutating func clear() {
        markedAt = nil
        endedAt = nil
    }

    /// Settles the marked speech: whom to tell the verdict.
    mutating func settle() -> Handler? {
        clear()
        return handler
    }

    /// Our VAD's view of one frame: once the marked speech is known to have held no words, it is
    /// settled, and whom to tell so is returned.
    mutating func unheard(_ activity: SpeechActivity, at now: ContinuousClock.Instant = VirtualTimeExecutor.now) -> Handler? {
        guard markedAt != nil else { return nil }
        if activity == .ended { endedAt = now }
        guard let endedAt, endedAt.duration(to: now) > unheardAfter else { return nil }
        return settle()
    }
}
