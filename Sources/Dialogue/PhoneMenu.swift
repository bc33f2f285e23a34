import Knowledge

/// A phone menu heard on an outbound call ("For deliveries, press 2. To speak to someone, press 0.",
/// "배송 문의는 2번, 상담원 연결은 0번을 눌러 주세요."): its options, each a key and the words that name
/// it, and the option that leads toward the call's purpose.
///
/// Options are read from the words as a recognizer writes them: a key said as a digit or a word
/// ("two", "이번"), before or after its words ("press 2 for billing", "for billing, press 2",
/// "billing, press 2", "결제는 2번"). The choice is by words: the option sharing the most content
/// words with the call's purpose and questions, else one that reaches a person.
public struct PhoneMenu: Sendable, Equatable {
    public struct Option: Sendable, Equatable {
        /// The key to press; nil: the option is said — a menu that asks for speech ("Please say
        /// billing, deliveries or operator"), its words what the agent says.
        public var key: Character?
        /// What the menu says the key is for, lower-cased.
        public var words: String

        public init(key: Character?, words: String) {
            self.key = key
            self.words = words
        }

        /// The same choice: the same key, or the same words to say.
        func offersTheSame(as other: Option) -> Bool { key == other.key && (key != nil || words == other.words) }
    }

    public var options: [Option]

    public init(options: [Option]) { self.options = options }

    /// Whether `option` is the menu's way to a person rather than to the call's business.
    public static func reachesPerson(_ option: Option) -> Bool { personWords.contains { option.words.contains($0) } }

    /// The menu in `text`; nil when it offers no keys (and, in English, no choices to say).
    public init?(_ text: String) {
        let korean = Hangul.occurs(in: text)
        var found = korean ? Self.koreanOptions(in: text) : Self.englishOptions(in: text)
        if found.isEmpty, !korean { found = Self.spokenOptions(in: text) }
        var seen = Set<String>()
        options = found.filter { seen.insert($0.key.map(String.init) ?? "say " + $0.words).inserted }
        guard !options.isEmpty else { return nil }
    }

    /// The option toward `goal` (the call's purpose and questions); nil: none leads there and none
    /// reaches a person. `meaning`: how close each option's words are to the goal in meaning (a
    /// cosine, by the option's words), where known — it settles a tie of shared words, and with no
    /// word shared picks an option close enough and clearly closer than the others.
    public func choice(toward goal: String, meaning: [String: Double] = [:]) -> Option? {
        let wanted = Self.contentWords(goal)
        let scored = options.map { option in (option, Self.contentWords(option.words).intersection(wanted).count) }
        let most = scored.map(\.1).max() ?? 0
        if most > 0 {
            // The first of the tied, unless a later one is closer in meaning.
            let tied = scored.filter { $0.1 == most }.map(\.0)
            return tied.dropFirst().reduce(tied[0]) { best, option in (meaning[option.words] ?? 0) > (meaning[best.words] ?? 0) ? option : best }
        }
        let ranked = options.filter { !Self.reachesPerson($0) }.compactMap { option in meaning[option.words].map { (option, $0) } }
            .sorted { $0.1 > $1.1 }
        if let first = ranked.first, first.1 >= Self.meaningFloor, ranked.count < 2 || first.1 - ranked[1].1 >= Self.meaningMargin {
            return first.0
        }
        return options.first(where: Self.reachesPerson)
    }

    /// Closeness in meaning (multilingual-e5-small's cosine of the goal as a query and an option as
    /// a passage) an option sharing no word with the goal needs to be pressed, and its lead over the
    /// next. Set on `PhoneMenuMeaningTests`' menus and a few more like them: options toward the goal
    /// came out 0.84–0.89 but some at 0.81–0.82 ("shipments and tracking" for a parcel), the others
    /// 0.76–0.83 — so it presses rarely, and a person's option, or none, stands otherwise.
    static let meaningFloor = 0.84
    static let meaningMargin = 0.02

    // MARK: English

    static let keyWords: [String: Character] = [
        "zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
        "eight": "8", "nine": "9", "star": "*", "pound": "#", "hash": "#",
    ]

    /// "press 2 for billing" / "press 2 to pay", or "for billing, press 2" / "to pay, press 2" /
    /// "billing, press 2" — read from the words alone, as a recognizer may write a menu without a
    /// comma or a full stop ("for billing press 1 for delivery press 2"). A menu keeps one order,
    /// told by its end: one that ends on a key names each option before its key.
    static func englishOptions(in text: String) -> [Option] {
        let words = ReplyInterpreter.words(text)
        let presses = words.indices.filter { i in pressWords.contains(words[i]) && keyAfterPress(at: i, in: words) != nil }
        guard let last = presses.last else { return [] }
        let boundaries: Set<String> = ["for", "to", "if"]
        let openers: Set<String> = ["please", "and", "or", "then", "now", "otherwise", "else"]
        func trimmed(_ slice: ArraySlice<String>) -> String {
            slice.drop { boundaries.contains($0) || openers.contains($0) }.joined(separator: " ")
        }
        let keysAfterWords = words[(last + 2)...].allSatisfy { openers.contains($0) || ["thank", "you", "goodbye"].contains($0) }
        return presses.enumerated().map { n, press in
            let key = keyAfterPress(at: press, in: words)!
            guard keysAfterWords else {
                let end = n + 1 < presses.count ? presses[n + 1] : words.count
                return Option(key: key, words: trimmed(words[min(press + 2, end)..<end]))
            }
            // The first option's words follow a welcome ("Thank you for calling for billing"): from
            // its last "for"/"to"/"if". Later ones start right after the key before: from their first.
            let span = words[(n == 0 ? 0 : presses[n - 1] + 2)..<press]
            let opening = n == 0 ? span.lastIndex(where: boundaries.contains) : span.firstIndex(where: boundaries.contains)
            return Option(key: key, words: trimmed(opening.map { span[$0...] } ?? span.suffix(4)))
        }
    }

    static let pressWords: Set<String> = ["press", "dial", "select", "enter", "push"]

    /// Verbs a spoken choice may open with, their "to" part of it ("talk to an agent").
    static let phraseVerbs: Set<String> = ["talk", "speak", "get", "go", "connect", "return", "listen"]

    /// Words before a spoken choice that are not part of it ("just billing", "things like sales").
    static let spokenFillers: Set<String> = ["please", "just", "simply", "things", "like", "something", "such", "as", "either", "now"]

    /// What an imperative "say" follows (or a comma, or nothing).
    static let sayOpeners: Set<String> = ["", "please", "can", "may", "just", "simply", "now", "or", "then", "and", "also"]

    /// A menu that asks for speech and offers no key: "Please say billing, deliveries or
    /// operator.", "Say agent to talk to someone, or check an order.", "For sales, say sales. For
    /// repairs, say repairs." — the choices after each imperative "say" (after its colon, if it
    /// has one), split at commas and "or", each up to four words ("to …" after a choice says what
    /// it is for, and is not said). Two choices at least: "Could you say that again?" is a person's.
    static func spokenOptions(in text: String) -> [Option] {
        var choices: [String] = [], saying = 0, offersList = false
        for sentence in text.lowercased().split(whereSeparator: { ".?!".contains($0) }) {
            // An imperative "say" ("Please say …", "You can say …"), not a person's "I'd say …".
            guard let say = sentence.ranges(of: /\bsay\b/).last(where: { range in
                let before = sentence[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
                return before.hasSuffix(",") || sayOpeners.contains(ReplyInterpreter.words(before).last ?? "")
            }) else { continue }
            var said = sentence[say.upperBound...]
            saying += 1
            if said.contains(/\bor\b/) { offersList = true }
            if let colon = said.lastIndex(of: ":") { said = said[said.index(after: colon)...] }
            // Written without commas ("please say sales repairs or accounts"), a run of content
            // words before "or" is a list of one-word choices; with them, a choice may be a phrase.
            let listed = said.contains(",")
            choices += said.split(separator: /,|;|\bor\b/).flatMap { part -> [String] in
                var words = ReplyInterpreter.words(String(part)).drop { spokenFillers.contains($0) }
                // "agent to talk to someone": what the choice is for is not said — but "talk to an agent" is the choice.
                if let purpose = words.firstIndex(where: { ["to", "for", "if"].contains($0) }), purpose > words.startIndex,
                   !(purpose == words.index(after: words.startIndex) && phraseVerbs.contains(words[words.startIndex])) {
                    words = words[..<purpose]
                }
                guard (1...4).contains(words.count), !words.allSatisfy(stopWords.contains) else { return [] }
                return listed || words.contains(where: stopWords.contains) ? [words.joined(separator: " ")] : words.map { $0 }
            }
        }
        // A list ("…, or …") or a "say" in each of several sentences: "please say that again, I
        // couldn't hear" is a person's.
        return choices.count >= 2 && (offersList || saying >= 2) ? choices.map { Option(key: nil, words: $0) } : []
    }

    /// Whether `keys` are 1 to `most` keys of a phone's keypad (0–9, * and #).
    public static func areKeys(_ keys: String, atMost most: Int) -> Bool {
        (1...most).contains(keys.count) && keys.allSatisfy { "0123456789*#".contains($0) }
    }

    /// The key said after the press word at `index`. A recognizer writes a last key as the word it
    /// sounds like ("… press to.", "press for."): taken for the key only at the very end, where
    /// nothing can follow "to" or "for".
    static func keyAfterPress(at index: Int, in words: [String]) -> Character? {
        guard index + 1 < words.count else { return nil }
        if let key = key(words[index + 1]) { return key }
        return index + 2 == words.count ? soundAlikeKeys[words[index + 1]] : nil
    }

    static let soundAlikeKeys: [String: Character] = ["to": "2", "too": "2", "for": "4", "won": "1"]

    static func key(_ word: String) -> Character? {
        if word.count == 1, let c = word.first, c.isNumber { return c }
        return keyWords[word]
    }

    // MARK: Korean

    static let koreanKeys: [String: Character] = [
        "공": "0", "영": "0", "일": "1", "이": "2", "삼": "3", "사": "4", "오": "5", "육": "6", "칠": "7", "팔": "8", "구": "9",
    ]

    /// "배송 문의는 2번", "상담원 연결은 0번을 눌러 주세요", "2번을 누르시면 배송 문의입니다".
    static func koreanOptions(in text: String) -> [Option] {
        var options: [Option] = []
        // A word ending in "니다" ends a sentence ("…택배입니다"), with or without the full stop a
        // recognizer may leave out: the welcome's words are no part of the first option's name.
        let clauses = text.split { ".,;!?\n".contains($0) }.flatMap { clause in
            clause.replacing(/니다\s+/, with: "니다\n").split(separator: "\n")
        }.map(String.init)
        for clause in clauses {
            guard let match = clause.firstMatch(of: /([0-9]|[공영일이삼사오육칠팔구])\s*번/) else { continue }
            let keyText = String(match.1)
            guard let key = keyText.first.flatMap({ $0.isNumber ? $0 : koreanKeys[keyText] }) else { continue }
            let before = String(clause[..<match.range.lowerBound])
            let after = String(clause[match.range.upperBound...])
            // "… 문의는 2번" names it before the key; "2번을 누르시면 … 문의입니다" after.
            let named = before.trimmingCharacters(in: .whitespaces).isEmpty || before.contains("누르") ? after : before
            var label = named.replacingOccurrences(of: "을 누르", with: " ").replacingOccurrences(of: "를 누르", with: " ")
                .trimmingCharacters(in: .whitespaces)
            // The topic particle is no part of the option's name ("배송 문의는" → "배송 문의").
            if let last = label.last, "은는".contains(last), label.count > 2 { label.removeLast() }
            options.append(Option(key: key, words: label.trimmingCharacters(in: .whitespaces)))
        }
        return options
    }

    /// A menu's own refusal of a key or a silence ("That is not a valid selection", "잘못 누르셨습니다"):
    /// the system talking, never the person's answer.
    public static func refusesEntry(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return refusals.contains { lowered.contains($0) }
    }

    /// A system's words, not a person's: "I didn't receive it" or "that's invalid" may well be an answer.
    static let refusals = ["not a valid", "please try again", "잘못 누르", "잘못 입력", "올바르지 않", "입력이 없", "다시 선택"]

    // MARK: Choosing

    /// Labels that reach a person when no option names the call's business.
    static let personWords = ["operator", "representative", "agent", "someone", "a person", "customer service", "all other",
                              "other inquiries", "other questions", "상담원", "상담사", "직원", "기타"]
    static let stopWords: Set<String> = ["the", "a", "an", "to", "for", "of", "and", "or", "your", "you", "our", "about", "with", "on", "in",
                                         "is", "are", "if", "it", "this", "that", "please", "can", "could", "would", "will", "do", "does",
                                         "we", "us", "i", "my", "me", "what", "when", "how", "any", "be", "have", "has", "call", "calling"]

    /// Words that carry meaning, crudely stemmed ("deliveries" and "delivery" meet); Korean
    /// words keep their first two syllables (particles and endings follow).
    static func contentWords(_ text: String) -> Set<String> {
        Set(KoreanReply.words(text.lowercased()).compactMap { word -> String? in
            guard !stopWords.contains(word), word.count > 1 || Hangul.occurs(in: word) else { return nil }
            if Hangul.occurs(in: word) { return String(word.prefix(2)) }
            for suffix in ["ies", "ing", "es", "ed", "s", "y"] where word.count > suffix.count + 3 && word.hasSuffix(suffix) {
                return String(word.dropLast(suffix.count))
            }
            return word
        })
    }
}
