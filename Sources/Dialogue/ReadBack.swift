import Foundation

/// Reading an answer back, as a careful person on the phone does with what is easily misheard:
/// "I have five five five, one two three, four five six seven. Is that right?" The spoken form
/// is what the caller can check by ear — digits one by one in groups, a day as a date with its
/// time — and is written so the same rules read it back into the same value.
public enum ReadBack {
    /// What the local dialogue reads back unless configured otherwise (`engine.read_back`):
    /// numbers to dial, names and dates — a yes/no, a count or a choice is heard well enough, but
    /// for an English number that `mayBeMisheard` ("fifteen", "fifty"), read back whenever
    /// read-backs are on.
    public static let defaultKinds: Set<AnswerKind> = [.phoneNumber, .name, .dateTime]
    /// What may be read back (`engine.read_back`).
    public static let readableKinds: Set<AnswerKind> = [.phoneNumber, .name, .dateTime, .number]

    /// Whether a number (a count or an amount, as `ReplyInterpreter` normalises it: "60 USD",
    /// "15") holds a teen or a tens that sounds like one: "fifteen" and "fifty", "thirteen" and
    /// "thirty", also as hundreds ("fifteen hundred") or thousands ("forty thousand") — the
    /// numbers a listener, or a recognizer on a phone line, most often takes for another. "Twenty"
    /// has no such teen; "five" or "three hundred" are heard well enough.
    public static func mayBeMisheard(_ number: String) -> Bool {
        guard let whole = Int(number.prefix { $0.isNumber }) else { return false }
        var said = [whole % 100, whole / 1000 % 100]
        if whole % 100 == 0, whole % 1000 != 0, whole < 10_000 { said.append(whole / 100) }   // "fifteen hundred"
        return said.contains { (13...19).contains($0) || $0 % 10 == 0 && (30...90).contains($0) }
    }

    /// The question the dialogue puts; the simulated callee listens for its ending.
    public static func question(_ spoken: String) -> String { DialoguePhrases.english.readBack(spoken) }

    /// Words of a read-back's question, as a recognizer may write them ("Is that right?" heard
    /// as "in that right", "is that rife"), and how a read-back opens ("I have …").
    static let questionWords = ["is that", "that right", "that correct", "is it right"]
    static let openings = ["i have", "i've", "sorry i have"]

    /// Whether an agent utterance (as heard) asks the caller to check a read-back.
    public static func isReadBack(_ heard: String) -> Bool {
        let words = ReplyInterpreter.words(heard)
        let text = " " + words.joined(separator: " ") + " "
        return questionWords.contains { text.contains(" \($0) ") } || openings.contains { text.hasPrefix(" \($0) ") }
    }

    static let digitNames = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    /// `summary` (an answer of `kind`, as `ReplyInterpreter` normalises it) as words to say.
    public static func spoken(_ summary: String, as kind: AnswerKind, now: Date = Date(), calendar: Calendar = .current) -> String {
        switch kind {
        case .phoneNumber: phoneNumber(summary)
        case .dateTime: dateTime(summary, now: now, calendar: calendar)
        case .number: summary.replacingOccurrences(of: " USD", with: " dollars").replacingOccurrences(of: " EUR", with: " euros")
            .replacingOccurrences(of: " GBP", with: " pounds")
        default: summary
        }
    }

    /// "+15551234567" → "five five five, one two three, four five six seven" (a North American
    /// number without its country code, as it was said); any other → "plus", then the digits in
    /// threes, the last group of four.
    static func phoneNumber(_ e164: String) -> String {
        var digits = Array(e164.filter(\.isNumber))
        var lead: [String] = []
        if e164.hasPrefix("+1"), digits.count == 11 { digits.removeFirst() } else if e164.hasPrefix("+") { lead = ["plus"] }
        var groups: [[Character]] = []
        while digits.count > 4 {
            let size = digits.count == 6 || digits.count == 5 ? digits.count - 3 : 3
            groups.append(Array(digits.prefix(size)))
            digits.removeFirst(size)
        }
        if !digits.isEmpty { groups.append(digits) }
        let spokenGroups = groups.map { $0.map { digitNames[Int(String($0)) ?? 0] }.joined(separator: " ") }
        return (lead + [spokenGroups.joined(separator: ", ")]).joined(separator: " ")
    }

    /// "2026-11-27T14:00" → "tomorrow, November 27th, at 2 PM"; "2026-11-30" → "November 30th";
    /// "10:30" → "10:30 AM".
    static func dateTime(_ iso: String, now: Date, calendar: Calendar) -> String {
        let parts = iso.split(separator: "T", omittingEmptySubsequences: false).map(String.init)
        var words: [String] = []
        if let day = parts.first, day.count == 10 {
            let ymd = day.split(separator: "-").compactMap { Int($0) }
            if ymd.count == 3, (1...12).contains(ymd[1]) {
                var components = DateComponents()
                components.year = ymd[0]; components.month = ymd[1]; components.day = ymd[2]
                let today = calendar.startOfDay(for: now)
                let relative = calendar.date(from: components).map { calendar.dateComponents([.day], from: today, to: $0).day } ?? nil
                let name = relative == 0 ? "today, " : relative == 1 ? "tomorrow, " : ""
                words.append("\(name)\(monthNames[ymd[1] - 1]) \(ordinal(ymd[2]))")
            }
        }
        let time = parts.count == 2 ? parts[1] : (iso.contains(":") ? iso : "")
        let hm = time.split(separator: ":").compactMap { Int($0) }
        if hm.count == 2 {
            let hour12 = hm[0] % 12 == 0 ? 12 : hm[0] % 12
            let clock = hm[1] == 0 ? "\(hour12)" : String(format: "%d:%02d", hour12, hm[1])
            words.append((words.isEmpty ? "" : "at ") + clock + (hm[0] < 12 ? " AM" : " PM"))
        }
        return words.isEmpty ? iso : words.joined(separator: ", ")
    }

    /// 1 → "1st", 22 → "22nd", 13 → "13th": a day of the month as it is said ("November
    /// twenty-ninth"; the plain number was said "November twenty-nine").
    static func ordinal(_ day: Int) -> String {
        let suffix = (11...13).contains(day % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][day % 10] ?? "th"
        return "\(day)\(suffix)"
    }

    /// The caller's side: whether a read-back (as heard) gives back the value in `said` (what the
    /// caller said) — the same digits, the same day and time, the same name. Nil when `said` holds
    /// no value of a kind that is read back. Every reading of `said` is tried, as the caller knows
    /// what their line was: "About two hundred and fifty dollars." read back as "250 dollars"
    /// matches, though "about two" also reads as a time; a name introduced ("My name is …") or bare
    /// ("Ana Kovac.", "Tom Reyes will sign.") is the caller's name.
    public static func matches(_ heard: String, said: String, now: Date = Date(), calendar: Calendar = .current) -> Bool? {
        let interpreter = ReplyInterpreter(kinds: [], now: now, calendar: calendar)
        let saidWords = ReplyInterpreter.words(said), heardWords = ReplyInterpreter.words(heard)
        let readings: [(AnswerKind, strict: Bool)] = [(.phoneNumber, false), (.dateTime, false), (.name, true), (.number, false), (.name, false)]
        var holdsAValue = false
        for (kind, strict) in readings {
            guard let value = interpreter.extract(kind, from: saidWords, reply: said, strict: strict) else { continue }
            holdsAValue = true
            let given = kind == .name
                // The read-back says the name inside a sentence: every word of it must be there, as
                // the ear takes it — "Park" read back as "Parr" sounds the same.
                ? ReplyInterpreter.words(value).allSatisfy { word in heardWords.contains { soundsAlike($0, word) } }
                : interpreter.extract(kind, from: heardWords, reply: heard, strict: false) == value
            if given { return true }
        }
        return holdsAValue ? false : nil
    }

    /// Two spellings of one name word a listener cannot tell apart: the same first letter, and at
    /// most one letter added, dropped or changed ("Park", "Parr", "Parke"; not "Jane", "James").
    static func soundsAlike(_ a: String, _ b: String) -> Bool {
        let a = Array(a), b = Array(b)
        guard a.first == b.first, abs(a.count - b.count) <= 1 else { return false }
        if a == b { return true }
        var i = 0, j = 0, edits = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] { i += 1; j += 1; continue }
            edits += 1
            if edits > 1 { return false }
            if a.count > b.count { i += 1 } else if b.count > a.count { j += 1 } else { i += 1; j += 1 }
        }
        return edits + (a.count - i) + (b.count - j) <= 1
    }
}
