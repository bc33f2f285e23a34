/// A phone menu the simulated callee plays before its person comes on (`<ivr 2 For billing, press
/// 1. …>` entries, in order): each menu said, then its key awaited. The right key (an RFC 4733
/// event on the wire) goes on to the next menu, or through to the script's next line; another key,
/// or none after the menu was said twice, ends the call. A level that asks for speech
/// (`<ivr say:billing Please say billing, …>`) goes on when the agent's words hold its word; a key
/// there ends the call.
struct SimulatedMenu {
    struct Level {
        /// The key that leads on, or the word to be said ("say:billing" in the script).
        var key: Character?
        var word: String?
        var audio: [UInt8]
        var duration: Duration { .milliseconds(audio.count / 8) }
    }

    enum Action: Equatable {
        /// Play this menu (the next level, or the same one again).
        case say([UInt8])
        /// The last key was right: the person comes on.
        case through
        /// A wrong key, or no key after two tellings: goodbye.
        case refuse
    }

    /// How long each menu waits for its key once said.
    static let waitForKey = Duration.seconds(6)

    let levels: [Level]
    private(set) var at = 0
    private var tellings = 1
    private var deadline: ContinuousClock.Instant

    /// The menus, the first said at `saidAt`.
    init?(_ levels: [Level], saidAt: ContinuousClock.Instant) {
        guard let first = levels.first else { return nil }
        self.levels = levels
        deadline = saidAt + first.duration + Self.waitForKey
    }

    var isOver: Bool { at >= levels.count }

    /// The level being said waits for words, not a key.
    var awaitsWords: Bool { !isOver && levels[at].word != nil }

    mutating func pressed(_ key: Character, now: ContinuousClock.Instant) -> Action? {
        guard !isOver else { return nil }
        guard key == levels[at].key else {
            at = levels.count + 1
            return .refuse
        }
        return goOn(now: now)
    }

    /// The agent's words, heard: on when they hold the level's word; anything else is waited past.
    mutating func said(_ words: String, now: ContinuousClock.Instant) -> Action? {
        // "repair" for "repairs": the recognizer may drop a plural's "s".
        guard awaitsWords, let word = levels[at].word, words.lowercased().contains(word.count > 4 && word.hasSuffix("s") ? String(word.dropLast()) : word)
        else { return nil }
        return goOn(now: now)
    }

    private mutating func goOn(now: ContinuousClock.Instant) -> Action {
        at += 1
        tellings = 1
        guard !isOver else { return .through }
        deadline = now + levels[at].duration + Self.waitForKey
        return .say(levels[at].audio)
    }

    /// Called as audio comes in: the menu again, or goodbye, once its wait for a key is over.
    mutating func tick(now: ContinuousClock.Instant) -> Action? {
        guard !isOver, now >= deadline else { return nil }
        guard tellings < 2 else {
            at = levels.count + 1   // said goodbye: over, and not through
            return .refuse
        }
        tellings += 1
        deadline = now + levels[at].duration + Self.waitForKey
        return .say(levels[at].audio)
    }
}
