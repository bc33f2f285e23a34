/// A phone menu on an outbound call: the agent listens to its options without a word, presses the
/// key of the one toward the call's purpose (or of a person), goes through the next menu the same
/// way, waits through the hold, and gives the person who answers the opening again. A menu with no
/// way there ends the call `ivr_no_route`; a menu or hold that never reaches anyone, `ivr_timeout`.
extension ScriptedDialogue {
    /// Menus heard before the agent stops pressing (one going round in circles).
    static let menusMax = 6
    /// Reply timeouts waited through in a menu before any key (8 s each by default: a minute), and
    /// on hold once a key was pressed (five minutes: holds are long; `max_duration` bounds both).
    static let menuSilencesMax = 8
    static let holdSilencesMax = 38

    /// The step `reply` calls for when a phone menu may be speaking — on an outbound call before
    /// anything was answered (a menu may open with the business's name on its own: "Safe Home
    /// Insurance."), or anything once a menu was heard; nil: a person's words, read as usual.
    mutating func menuStep(_ reply: String) -> Step? {
        let navigating = tracker.menu?.state == .navigating
        guard menuMayBeSpeaking else { return nil }
        // The menu refusing a key, or the silence: its words are nobody's answer.
        if PhoneMenu.refusesEntry(reply) {
            if tracker.menu == nil { tracker.menu = MenuPassage() }
            return .listen(text: "")
        }
        if let menu = PhoneMenu(reply) {
            if tracker.menu == nil { tracker.menu = MenuPassage() }
            menuSilences = 0
            // A known path's keys are the session's to press, on their own timing.
            return context.followsMenuPath ? .listen(text: "") : heard(menu)
        }
        guard navigating, opening != nil else { return nil }
        guard !ReplyInterpreter.words(reply).isEmpty else { return .listen(text: "") }
        unplacedWordsAwaitingPerson = false
        // Words that are not options: the menu was said whole, and its options decide.
        if !menuOptions.isEmpty, let step = pressFallback() { return step }
        if CallScreener.heard(reply) != nil { return .listen(text: "") }   // "please hold", "one moment"
        // Hold music written as words, a recording: or the person, misheard (`menuSilence`).
        guard personGreets(reply) else { return .listen(text: "") }
        return personReachedThroughMenu()
    }

    /// The person answered behind the menu: the opening, its question counted now where a known
    /// path kept it unsaid (`start`), else once already (a menu's hearing of it was not an asking).
    mutating func personReachedThroughMenu() -> Step? {
        tracker.menu?.state = .personReached
        if context.followsMenuPath, case .ask(_, let index)? = opening { tracker.asked(index) }
        return opening
    }

    /// Whether a phone menu may be what the callee says: on an outbound call before anything was
    /// answered, or while going through one.
    var menuMayBeSpeaking: Bool {
        if tracker.menu?.state == .navigating { return true }
        let unanswered = !tracker.answers.contains { [.answered, .refused].contains($0.status) } && tracker.menu == nil && tracker.screener == nil
        return unanswered && context.call.direction == "outbound" && opening != nil
    }

    /// The words of the options in `reply`, when it is a menu the dialogue will choose in, whose
    /// closeness to `menuGoal` is not known yet (for the engine to weigh, `noteMenuMeaning`).
    public func menuOptionsToWeigh(_ reply: String) -> [String] {
        guard menuMayBeSpeaking, !context.followsMenuPath, let menu = PhoneMenu(reply) else { return [] }
        return menu.options.map(\.words).filter { menuMeaning[$0] == nil }
    }

    /// How close each option's words are to `menuGoal` in meaning (a cosine).
    public mutating func noteMenuMeaning(_ closeness: [(words: String, closeness: Double)]) {
        for (words, value) in closeness { menuMeaning[words] = value }
    }

    /// Options heard: the one toward the goal pressed at once; a person's kept until the menu has
    /// been said whole (it starts over, or falls silent). A key heard again takes its newer words:
    /// a menu said over the agent's greeting is often heard right only the second time.
    mutating func heard(_ menu: PhoneMenu) -> Step {
        let repeats = !menuOptions.isEmpty && menu.options.allSatisfy { option in menuOptions.contains { $0.offersTheSame(as: option) } }
        for option in menu.options {
            if let known = menuOptions.firstIndex(where: { $0.offersTheSame(as: option) }) { menuOptions[known] = option } else { menuOptions.append(option) }
        }
        if let option = PhoneMenu(options: menuOptions).choice(toward: menuGoal, meaning: menuMeaning), !PhoneMenu.reachesPerson(option) {
            return press(option)
        }
        if repeats, let step = pressFallback() { return step }
        return .listen(text: "")
    }

    /// The menu was said whole: a person's option if it has one, else no way through.
    mutating func pressFallback() -> Step? {
        guard !menuOptions.isEmpty else { return nil }
        if let option = PhoneMenu(options: menuOptions).choice(toward: menuGoal, meaning: menuMeaning) { return press(option) }
        tracker.menu?.state = .noRoute
        return close(context.closing)
    }

    /// Presses the option's key, or says its words where the menu asks for speech.
    mutating func press(_ option: PhoneMenu.Option) -> Step {
        menuOptions = []
        tracker.menu?.pressed.append(.init(key: option.key.map(String.init) ?? "", option: option.words))
        guard (tracker.menu?.pressed.count ?? 0) <= Self.menusMax else {
            tracker.menu?.state = .noRoute
            return close(context.closing)
        }
        guard let key = option.key else { return .listen(text: option.words.prefix(1).uppercased() + option.words.dropFirst() + ".") }
        return .press(keys: String(key))
    }

    /// What a menu's options are matched against: the call's purpose and questions.
    public var menuGoal: String { ([context.purpose] + context.questions).joined(separator: " ") }

    /// No reply for the engine's timeout in a menu or on hold.
    mutating func menuSilence() -> Step? {
        guard tracker.menu?.state == .navigating else { return nil }
        if menuOptions.isEmpty, opening != nil, personWaited() { return personReachedThroughMenu() }
        menuSilences += 1
        // A menu with no way there gets a second hearing (menus start over when nobody presses,
        // and one said over the greeting is often heard right only then); a person's option does not wait.
        let reachable = PhoneMenu(options: menuOptions).choice(toward: menuGoal, meaning: menuMeaning) != nil
        if reachable || menuSilences >= 2, let step = pressFallback() { return step }
        let limit = tracker.menu?.pressed.isEmpty == false ? Self.holdSilencesMax : Self.menuSilencesMax
        guard menuSilences >= limit else { return .listen(text: "") }
        tracker.menu?.state = .timedOut
        return close(context.closing)
    }
}

/// How an outbound call went through a phone menu (`TaskTracker.menu`).
public struct MenuPassage: Sendable, Equatable {
    public enum State: String, Sendable, Equatable {
        case navigating
        case personReached = "person_reached"
        /// No option led toward the call's purpose or to a person.
        case noRoute = "ivr_no_route"
        /// The menu or the hold went on without reaching anyone.
        case timedOut = "ivr_timeout"
    }

    public struct Press: Sendable, Equatable {
        /// The keys pressed; empty: the option's words were said (a menu that asks for speech).
        public var key: String
        /// The option's words, as the menu said them.
        public var option: String
    }

    public var state = State.navigating
    /// Keys pressed, in order; a known path's (`menu_path`) have no option's words.
    public var pressed: [Press] = []

    public init(state: State = .navigating, pressed: [Press] = []) {
        self.state = state
        self.pressed = pressed
    }

    /// "2 (deliveries), then 0 (an operator)"; a choice said: "\"billing\"".
    public var path: String {
        pressed.map { $0.key.isEmpty ? "\"\($0.option)\"" : $0.option.isEmpty ? $0.key : "\($0.key) (\($0.option))" }.joined(separator: ", then ")
    }
}
