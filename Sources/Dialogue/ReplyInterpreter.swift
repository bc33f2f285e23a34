import Foundation
import Knowledge

/// What a caller's reply means to the local dialogue (seed 000 §4.4, without a language model):
/// an answer to the question asked (and perhaps to others), a refusal, a question back, a
/// request to call later — or words that answer nothing. English rules; see `AnswerKind` for
/// what each question is taken to ask.
public struct ReplyInterpreter: Sendable {
    public enum Meaning: Sendable, Equatable {
        /// Nothing intelligible came through (noise the recognizer made nothing of).
        case nothing
        /// "Who is this?" / "What is this about?": introduce the call again.
        case whoIsCalling
        /// "Call me back later": end politely, the questions stay open.
        case callBackLater
        /// "Can I talk to a person?": hand the call over, when there is someone to hand it to.
        case wantsPerson
        case refused
        /// Words that answer nothing ("hmm, I'm not sure"); re-asked once.
        case unclear
        /// Question index → what it answered. May hold the question asked, others, or both.
        case answers([Int: Extracted])
    }

    public struct Extracted: Sendable, Equatable {
        public var summary: String
        public var confidence: Double
    }

    public let kinds: [AnswerKind]
    /// The options of each `choice` question, by index.
    let choices: [Int: [String]]
    let dates: SpokenDate
    /// Digits a national number is prefixed with for E.164 ("1" for English, "82" for Korean).
    let countryCode: String
    /// Replies are read with the Korean rules (`ReplyInterpreter+Korean`).
    private(set) var korean: Bool

    public init(questions: [String], language: String = "en", now: Date = Date(), calendar: Calendar = .current) {
        self.init(kinds: questions.map(AnswerKind.init(question:)), language: language, now: now, calendar: calendar)
    }

    /// Questions whose kinds are stated (a flow's `ask` steps) rather than read from their wording.
    public init(kinds: [AnswerKind], choices: [Int: [String]] = [:], language: String = "en", now: Date = Date(), calendar: Calendar = .current) {
        self.kinds = kinds
        self.choices = choices
        dates = SpokenDate(now: now, calendar: calendar)
        korean = DialoguePhrases.isKorean(language)
        countryCode = korean ? "82" : "1"
    }

    /// The same questions read in `language` (the caller switched to it): their kinds stay as
    /// the operator's wording made them, and a national number keeps the call's country code —
    /// the line's country, not the words'.
    public func speaking(_ language: String) -> ReplyInterpreter {
        var switched = self
        switched.korean = DialoguePhrases.isKorean(language)
        return switched
    }

    static let fillers: Set<String> = ["hmm", "hm", "uh", "um", "er", "ah", "mm", "erm", "well", "so", "oh"]
    static let whoIsCalling = ["who is this", "who's this", "who is calling", "who's calling", "who are you", "what is this about",
                               "what's this about", "what is this regarding", "what's this regarding", "who is speaking", "what company"]
    static let wantsPerson = ["a person", "a human", "human", "real person", "operator", "a representative", "an agent",
                              "a real agent", "someone else", "speak to someone", "talk to someone", "speak to a manager", "a manager"]
    /// Korean asks for a person with particles attached ("상담원이랑", "상담원 연결"): matched inside words.
    static let wantsPersonKorean = ["상담원", "상담사", "사람이랑", "사람하고", "사람과 통화", "사람 바꿔", "직원 바꿔", "직원이랑"]
    static let plainYesNo: Set<String> = ["yes", "yeah", "yep", "yup", "no", "nope", "nah"]

    /// Whether `words` say one of `phrases`, each as whole words in order ("not sure" in "I'm not sure yet").
    static func says(_ phrases: [String], in words: [String]) -> Bool {
        let text = " " + words.joined(separator: " ") + " "
        return phrases.contains { text.contains(" \($0) ") }
    }

    /// Lower-cased words; ":" and "+" stay inside tokens ("2:30", "+44").
    public static func words(_ text: String) -> [String] {
        tokens(text).map { $0.lowercased() }
    }

    /// The words as said, case kept. The old spellings a recognizer sometimes writes ("to-morrow",
    /// "to-day", "to-night") are one word, as today; so is a number written with thousands
    /// separators ("1,500"). An apostrophe inside a word stays ("don't", "o'clock"); one at its
    /// edge is a quotation mark ("'This is …'").
    public static func tokens(_ text: String) -> [String] {
        text.replacingOccurrences(of: "’", with: "'")
            .replacing(/\b([Tt])o-(morrow|day|night)\b/) { "\($0.1)o\($0.2)" }
            .replacing(/(\d),(\d{3})\b/) { "\($0.1)\($0.2)" }
            .split { !($0.isLetter || $0.isNumber || $0 == "'" || $0 == ":" || $0 == "+") }
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
            .filter { !$0.isEmpty }
    }

    /// What `reply` means when question `asked` was put; `open` are the questions still waiting for an answer.
    public func interpret(_ reply: String, asked: Int, open: Set<Int>) -> Meaning {
        if readsKorean(reply) { return interpretKorean(reply, asked: asked, open: open) }
        let words = Self.words(reply)
        func says(_ phrases: [String]) -> Bool { Self.says(phrases, in: words) }
        guard words.contains(where: { !Self.fillers.contains($0) }) else { return words.isEmpty ? .nothing : .unclear }
        if says(Self.wantsPerson) || Self.wantsPersonKorean.contains(where: reply.contains) { return .wantsPerson }
        if says(Self.whoIsCalling) { return .whoIsCalling }
        let kind = kinds.indices.contains(asked) ? kinds[asked] : .freeText
        // "You can call me back on 010 555 0123" gives the number asked for; it asks for no call later.
        if Self.asksForACallLater(words), !(kind == .phoneNumber && extract(.phoneNumber, from: words, reply: reply, strict: false) != nil) {
            return .callBackLater
        }
        if Self.refuses(words, to: kind) { return .refused }
        // A hedge makes a reply unclear, unless it opens with a plain yes or no ("No, it can't, say…").
        let opensPlainly = words.first { !Self.fillers.contains($0) }.map(Self.plainYesNo.contains) ?? false
        let hedged = Self.hedges(words) && !opensPlainly
        var found: [Int: Extracted] = [:]
        if !(hedged && [.yesNo, .freeText, .choice].contains(kind)), let answer = extract(kind, from: words, reply: reply, strict: false, choices: choices[asked] ?? []) {
            found[asked] = Extracted(summary: answer, confidence: hedged ? 0.5 : 0.9)
        }
        // Answers to other open questions, said unprompted ("Yes — and tomorrow at two suits me"):
        // only kinds with unmistakable forms, and only a kind the asked question does not share.
        for other in open.sorted() where other != asked && kinds[other] != kind && [.name, .phoneNumber, .dateTime].contains(kinds[other]) {
            if let answer = extract(kinds[other], from: words, reply: reply, strict: true) {
                found[other] = Extracted(summary: answer, confidence: 0.8)
            }
        }
        return found.isEmpty ? .unclear : .answers(found)
    }

    /// Whether `reply` is read with the Korean rules: on a Korean call, unless it holds no Hangul (a
    /// recognizer may write an answer in English or in digits alone: "010 1234 5678", "OK").
    func readsKorean(_ reply: String) -> Bool {
        korean && Hangul.occurs(in: reply)
    }

    /// Yes (true), no (false) or neither in a reply, by the reply's language's rules.
    public func polarity(of reply: String) -> Bool? {
        readsKorean(reply) ? KoreanReply.polarity(of: reply) : YesNo.polarity(of: Self.words(reply))
    }

    /// The normalised answer of `kind` in `reply`, by the reply's language's rules.
    func answer(_ kind: AnswerKind, in reply: String, strict: Bool, choices: [String] = []) -> String? {
        readsKorean(reply) ? extractKorean(kind, from: reply, strict: strict, choices: choices) : extract(kind, from: Self.words(reply), reply: reply, strict: strict, choices: choices)
    }

    /// The normalised answer of `kind` in the reply; `strict` asks for forms that cannot be something else.
    func extract(_ kind: AnswerKind, from words: [String], reply: String, strict: Bool, choices: [String] = []) -> String? {
        switch kind {
        case .yesNo: YesNo.polarity(of: words).map { $0 ? "yes" : "no" }
        case .name: SpokenName.name(in: words, original: reply, strict: strict)
        case .phoneNumber: phoneNumber(in: words)
        case .dateTime: strict ? dates.day(in: words).flatMap { _ in dates.iso(in: words) } : dates.iso(in: words)
        case .number: number(in: words)
        case .choice: Self.choice(in: words, among: choices)
        case .freeText: reply.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters))
        }
    }

    /// The option whose words the reply says ("the blue one" → "Blue"), as the option is written;
    /// nil when it names none or more than one.
    static func choice(in words: [String], among choices: [String]) -> String? {
        let said = " " + words.joined(separator: " ") + " "
        let named = choices.filter { option in
            let optionWords = Self.words(option)
            return !optionWords.isEmpty && said.contains(" " + optionWords.joined(separator: " ") + " ")
        }
        return named.count == 1 ? named[0] : nil
    }

    /// A number to dial, in E.164 — only when it is well formed (`wellFormed`).
    func phoneNumber(in words: [String]) -> String? {
        let (digits, plus) = SpokenNumber.digitRun(in: words)
        return phoneNumber(digits: digits, plus: plus)
    }

    func phoneNumber(digits: String, plus: Bool) -> String? {
        guard digits.count >= 7, digits.count <= 15 else { return nil }
        let international: String
        if plus {
            international = digits
        } else if digits.hasPrefix("00") {
            international = String(digits.dropFirst(2))
        } else if countryCode == "1", digits.count == 11, digits.hasPrefix("1") {
            international = digits
        } else {
            international = countryCode + (digits.hasPrefix("0") ? digits.dropFirst() : Substring(digits))
        }
        return Self.wellFormed(international) ? "+" + international : nil
    }

    /// Whether `digits` (country code first) can be a number to dial: a digit too many or too few
    /// is a number misheard, and an operator would call the wrong one — better asked again. North
    /// America (+1): ten digits, the area code not starting with 0 or 1. Korea (+82): eight to ten
    /// after the country code, a mobile (010…) exactly ten. Elsewhere E.164's own bounds.
    static func wellFormed(_ digits: String) -> Bool {
        if digits.hasPrefix("1") {
            let national = digits.dropFirst()
            return national.count == 10 && national.first.map { $0 != "0" && $0 != "1" } == true
        }
        if digits.hasPrefix("82") {
            let national = digits.dropFirst(2)
            return national.hasPrefix("10") ? national.count == 10 : (8...10).contains(national.count)
        }
        return (8...15).contains(digits.count)
    }

    static let currencies = ["dollars": "USD", "dollar": "USD", "bucks": "USD", "euros": "EUR", "euro": "EUR", "pounds": "GBP",
                             "won": "KRW", "yen": "JPY"]

    /// A count or an amount: "3", "twenty five", "fifty dollars" → "50 USD", "nobody" → "0". One
    /// value, said once or more ("Four. Four of us."): a reply holding two ("two or three", "between
    /// forty and fifty", "two adults and one child") gives no count an operator could act on, and
    /// the first of them stored would be a guess. A number struck out ("not fourteen, forty") is
    /// not one of them, nor is a time's ("Two, for the show at eight").
    func number(in words: [String]) -> String? {
        // "about ten", "around eight" read as times too; said of a count they are its approximation.
        let time = dates.time(in: words)?.words.flatMap { ["about", "around"].contains(words[$0.lowerBound]) ? nil : $0 }
        var from = 0
        var said: (value: Int, currency: String?, end: Int)?
        while let (value, end, at) = SpokenNumber.firstInteger(in: words, from: from) {
            from = end
            // "the one", "this big one", "the two o'clock one": a pronoun, not a count of one.
            if SpokenNumber.isPronounOne(at: at, in: words) { continue }
            // "the two o'clock", "at 3 pm": a clock time, not a count.
            if end < words.count, SpokenDate.oClock.contains(words[end]) || SpokenDate.meridiem(words, end) != nil {
                continue
            }
            if at > 0, words[at - 1] == "not" { continue }
            if time?.contains(at) == true { continue }
            let currency = end < words.count ? Self.currency(words[end]) : nil
            guard let first = said else {
                said = (value, currency, end)
                continue
            }
            // "Nine, no, ten", "twelve — sorry, fifteen", "six, I mean seven": the caller's own
            // correction replaces the number before it.
            if Self.says(Self.corrections, in: Array(words[first.end..<at])) {
                said = (value, currency ?? first.currency, end)
                continue
            }
            guard first.value == value else { return nil }
            said = (value, first.currency ?? currency, end)
        }
        if let said { return said.currency.map { "\(said.value) \($0)" } ?? String(said.value) }
        return words.contains("none") || words.contains("nobody") || words.contains("nothing") ? "0" : nil
    }

    /// Words between two numbers that take the first back.
    static let corrections = ["no", "sorry", "i mean", "i meant", "actually", "rather", "make that", "make it", "correction"]

    /// The currency a word right after an amount names.
    static func currency(_ word: String) -> String? { currencies[word] }
}
