/// Speech the session marked as starting over the agent (`callerSpeaksOverAgent`), until the
/// engine's recognizer hears it — or until it is clear it will not: our VAD ended the speech and
/// nothing was heard `unheardAfter` later (a cough, a door, line noise past our VAD).
struct OverlapMark {
    private(set) var markedAt: ContinuousClock.Instant?
    private var endedAt: ContinuousClock.Instant?
    let unheardAfter: Duration

    init(unheardAfter: Duration) {
        self.unheardAfter = unheardAfter
    }

    var isPending: Bool { markedAt != nil }

    mutating func mark(at now: ContinuousClock.Instant = .now) {
        markedAt = now
        endedAt = nil
    }

    /// The recognizer heard it (or it is otherwise settled).
    mutating func clear() {
        markedAt = nil
        endedAt = nil
    }

    /// Our VAD's view of one frame: true once the marked speech is known to have held no words
    /// (the mark is then cleared).
    mutating func heldNoWords(_ activity: SpeechActivity, at now: ContinuousClock.Instant = .now) -> Bool {
        guard markedAt != nil else { return false }
        if activity == .ended { endedAt = now }
        guard let endedAt, endedAt.duration(to: now) > unheardAfter else { return false }
        clear()
        return true
    }
}
