import Foundation

/// Days and times as people say them ("tomorrow at two", "next Monday", "March fifth at 3:30 pm",
/// "half past ten in the morning"), resolved against the call's own date into ISO 8601:
/// `2026-11-23T14:00`, `2026-11-30` (a day alone) or `14:00` (a time alone).
struct SpokenDate {
    let now: Date
    let calendar: Calendar

    static let weekdays = ["sunday": 1, "monday": 2, "tuesday": 3, "wednesday": 4, "thursday": 5, "friday": 6, "saturday": 7]
    static let months = ["january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
                         "september": 9, "october": 10, "november": 11, "december": 12]

    /// The date and/or time in `words`; nil when they name neither — and when they name a month
    /// whose day is not read ("the eight-eenth of January at one" is no one o'clock of any day), or
    /// hold a number the time does not explain ("Wednesday, quarter two eight" is a time not read,
    /// not Wednesday alone; "two stay at four thirty" a day not read, not 16:30 of no day).
    func iso(in words: [String]) -> String? {
        let day = self.day(in: words)
        let namesAMonth = words.contains { $0 != "may" && Self.months[$0] != nil }
        if day == nil, namesAMonth { return nil }
        let time = self.time(in: words)
        // A month's day is a number the day explains; no such number is looked for then.
        if !namesAMonth, Self.numberSaid(in: words, outside: time?.words) { return nil }
        switch (day, time) {
        case (let day?, let time?): return String(format: "%@T%02d:%02d", day, time.hour, time.minute)
        case (let day?, nil): return day
        case (nil, let time?): return String(format: "%02d:%02d", time.hour, time.minute)
        case (nil, nil): return nil
        }
    }

    // MARK: The day

    func day(in words: [String]) -> String? {
        let today = calendar.startOfDay(for: now)
        func format(_ date: Date) -> String {
            let c = calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
        }
        func plus(_ days: Int) -> String { format(calendar.date(byAdding: .day, value: days, to: today)!) }
        func says(_ phrase: [String]) -> Bool {
            words.indices.contains { $0 + phrase.count <= words.count && Array(words[$0..<$0 + phrase.count]) == phrase && Self.isOffered(words, at: $0) }
        }
        if says(["day", "after", "tomorrow"]) { return plus(2) }
        if says(["tomorrow"]) { return plus(1) }
        if says(["today"]) || says(["tonight"]) || says(["this", "afternoon"]) || says(["this", "evening"]) { return plus(0) }
        for (i, word) in words.enumerated() where Self.isOffered(words, at: i) {
            if let weekday = Self.weekdays[word] {
                let current = calendar.component(.weekday, from: today)
                var ahead = (weekday - current + 7) % 7
                let qualifier = i > 0 ? words[i - 1] : ""
                if ahead == 0, qualifier != "this" { ahead = 7 }
                // "next Monday" said on a Saturday is the coming one; said on a Monday it is a week away.
                return plus(ahead)
            }
            if let month = Self.months[word], word != "may" || i + 1 < words.count && dayOfMonth(words, at: i + 1) != nil {
                let dayNumber = (i + 1 < words.count ? dayOfMonth(words, at: i + 1) : nil)
                    ?? (i >= 2 && words[i - 1] == "of" ? dayOfMonth(words, at: i - 2) : nil)
                guard let dayNumber else { continue }
                var components = calendar.dateComponents([.year], from: today)
                components.month = month
                components.day = dayNumber
                guard var date = calendar.date(from: components) else { continue }
                if date < today { date = calendar.date(byAdding: .year, value: 1, to: date)! }
                return format(date)
            }
        }
        return nil
    }

    /// Whether the day said at `index` is one the caller offers, not the past or a limit: "since
    /// Sunday", "last Friday", "away until Monday", "till tomorrow" say when something began or
    /// when the caller is not free — "the last Friday of the month" is a day.
    static func isOffered(_ words: [String], at index: Int) -> Bool {
        guard index > 0 else { return true }
        let before = words[index - 1]
        if before == "last" { return index > 1 && words[index - 2] == "the" }
        return !["since", "until", "till", "til"].contains(before)
    }

    /// "fifth", "5th", "5", "twenty first", "twenty one" at `index`.
    private func dayOfMonth(_ words: [String], at index: Int) -> Int? {
        guard index >= 0, index < words.count else { return nil }
        var word = words[index]
        if word == "the", index + 1 < words.count { word = words[index + 1] }
        if let ordinal = SpokenNumber.ordinals[word] { return ordinal }
        // "twenty ninth", and as people also say a day, "twenty nine" and "nine".
        let next = index + 1 < words.count ? words[index + 1] : ""
        if ["twenty", "thirty"].contains(word), let unit = SpokenNumber.ordinals[next] ?? SpokenNumber.small[next], (1..<10).contains(unit) {
            return (word == "twenty" ? 20 : 30) + unit
        }
        if let cardinal = SpokenNumber.small[word], (1...31).contains(cardinal) { return cardinal }
        let digits = word.prefix { $0.isNumber }
        guard let value = Int(digits), (1...31).contains(value) else { return nil }
        return value
    }

    // MARK: The time

    /// The time in `words`, and the words it was read from (none for "noon" or "midnight").
    func time(in words: [String]) -> (hour: Int, minute: Int, words: Range<Int>?)? {
        let text = " " + words.joined(separator: " ") + " "
        if text.contains(" noon ") || text.contains(" midday ") { return (12, 0, nil) }
        if text.contains(" midnight ") { return (0, 0, nil) }
        var found: (hour: Int, minute: Int, index: Int)?, start = 0
        for (i, word) in words.enumerated() where found == nil {
            start = i
            if word.contains(":"), let clock = clockTime(word) {
                found = (clock.hour, clock.minute, i + 1)
            } else if let minutes = minutesPastOrTo(words, at: Self.prepositions.contains(word) ? i + 1 : i) {
                found = minutes
            } else if let spoken = spokenTime(words, at: i) {
                found = spoken
            } else if let glued = gluedMeridiem(word) {
                return (glued.hour % 12 + (glued.pm ? 12 : 0), 0, i..<i + 1)
            }
        }
        guard let found else { return nil }
        var hour = found.hour, end = found.index
        let minute = found.minute
        if end < words.count, Self.oClock.contains(words[end]) { end += 1 }
        switch Self.meridiem(words, end) ?? partOfDay(text) {
        case true?: if hour < 12 { hour += 12 }
        case false?: if hour == 12 { hour = 0 }
        case nil: if (1...7).contains(hour) { hour += 12 }   // "at two" on a business call is the afternoon
        }
        return (hour, minute, start..<end)
    }

    /// Whether `words` say a number (not the pronoun "one", not a count of things: "four of us",
    /// "six guests"), or the "half" or "quarter" of a clock, outside `read` (the words a time was
    /// read from).
    static func numberSaid(in words: [String], outside read: Range<Int>?) -> Bool {
        words.indices.contains { i in
            guard read?.contains(i) != true, !SpokenNumber.isPronounOne(at: i, in: words) else { return false }
            if ["half", "quarter"].contains(words[i]) { return true }
            guard let number = SpokenNumber.integer(startingAt: i, in: words) else { return false }
            return !countsThings(words, at: number.end)
        }
    }

    /// Whether the word at `index`, after a number, makes it a count of things: "of" ("four of
    /// us"), "people", or a plural that is no span of time ("guests", not "weeks").
    static func countsThings(_ words: [String], at index: Int) -> Bool {
        guard index < words.count else { return false }
        let word = words[index]
        if ["of", "people", "persons", "children", "men", "women"].contains(word) { return true }
        return word.count > 2 && word.hasSuffix("s") && !spansOfTime.contains(word) && SpokenNumber.small[String(word.dropLast())] == nil
    }

    static let spansOfTime: Set<String> = ["minutes", "hours", "days", "weeks", "fortnights", "months", "years", "mins", "hrs"]

    static let prepositions: Set<String> = ["at", "around", "about", "by", "until"]
    /// How "o'clock" is written after an hour.
    static let oClock: Set<String> = ["o'clock", "oclock"]

    /// Words that name a day, after which a bare number is its hour ("tomorrow three").
    static let dayWords: Set<String> = Set(weekdays.keys).union(["today", "tomorrow", "tonight"])

    /// "at two", "at two thirty", "two thirty pm", "3 pm" starting at `index`: the hour, the minute and the index after them.
    /// A bare number needs a preposition before it, am/pm after it ("two people" is not a time), or
    /// a day right before it with nothing after but its minutes ("tomorrow, three", "Monday ten
    /// thirty"; "tomorrow, two people" is a day and a count, not 14:00).
    private func spokenTime(_ words: [String], at index: Int) -> (hour: Int, minute: Int, index: Int)? {
        let afterPreposition = Self.prepositions.contains(words[index])
        let hourIndex = afterPreposition ? index + 1 : index
        if afterPreposition, hourIndex < words.count, let clock = clockTime(words[hourIndex]) { return (clock.hour, clock.minute, hourIndex + 1) }
        guard hourIndex < words.count, let hour = hourWord(words[hourIndex]) else { return nil }
        var minute = 0, end = hourIndex + 1
        if end < words.count, let m = minuteWords(words, at: end) { minute = m.minute; end = m.end }
        let afterADay = hourIndex > 0 && Self.dayWords.contains(words[hourIndex - 1])
            && (end == words.count || Self.oClock.contains(words[end]))
        guard afterPreposition || afterADay || Self.meridiem(words, end) != nil else { return nil }
        return (hour, minute, end)
    }

    /// "half past two", "quarter to six", "ten past two", "twenty five to six", "ten after nine",
    /// "seven minutes past four": minutes a clock is said by (half, quarter, 5, 10, 20, 25, or any
    /// with "minutes"), then past, after or to, then the hour. ("Two to three" is a range, not 2:58.)
    private func minutesPastOrTo(_ words: [String], at index: Int) -> (hour: Int, minute: Int, index: Int)? {
        guard index < words.count else { return nil }
        let minutes: Int, next: Int, joiners: Set<String>
        switch words[index] {
        case "half": (minutes, next, joiners) = (30, index + 1, ["past"])
        case "quarter": (minutes, next, joiners) = (15, index + 1, ["past", "to"])
        default:
            guard let parsed = SpokenNumber.integer(startingAt: index, in: words), (1...29).contains(parsed.value) else { return nil }
            let saysMinutes = parsed.end < words.count && ["minutes", "minute"].contains(words[parsed.end])
            guard saysMinutes || [5, 10, 20, 25].contains(parsed.value) else { return nil }
            (minutes, next, joiners) = (parsed.value, parsed.end + (saysMinutes ? 1 : 0), ["past", "after", "to"])
        }
        guard next + 1 < words.count, joiners.contains(words[next]), let hour = hourWord(words[next + 1]) else { return nil }
        return words[next] == "to" ? ((hour + 10) % 12 + 1, 60 - minutes, next + 2) : (hour, minutes, next + 2)
    }

    /// true for pm, false for am, nil when `words[index]` says neither.
    static func meridiem(_ words: [String], _ index: Int) -> Bool? {
        guard index < words.count else { return nil }
        switch words[index] {
        case "pm", "p.m.", "p.m": return true
        case "am", "a.m.", "a.m": return false
        case "p" where index + 1 < words.count && words[index + 1] == "m": return true
        case "a" where index + 1 < words.count && words[index + 1] == "m": return false
        default: return nil
        }
    }

    private func partOfDay(_ text: String) -> Bool? {
        if text.contains(" morning ") { return false }
        if text.contains(" afternoon ") || text.contains(" evening ") || text.contains(" tonight ") { return true }
        return nil
    }

    private func hourWord(_ word: String) -> Int? {
        if let value = SpokenNumber.small[word], (1...12).contains(value) { return value }
        if let value = Int(word), (0...23).contains(value) { return value }
        return clockTime(word)?.hour
    }

    private func minuteWords(_ words: [String], at index: Int) -> (minute: Int, end: Int)? {
        if let value = Int(words[index]), (0...59).contains(value), words[index].count == 2 { return (value, index + 1) }
        guard let parsed = SpokenNumber.integer(startingAt: index, in: words), (1...59).contains(parsed.value), parsed.value >= 10 ||
                words[index] == "oh" else { return nil }
        return (parsed.value, parsed.end)
    }

    private func clockTime(_ word: String) -> (hour: Int, minute: Int)? {
        let parts = word.split(separator: ":")
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1].prefix(2)), (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        return (hour, minute)
    }

    /// "2pm", "10am".
    private func gluedMeridiem(_ word: String) -> (hour: Int, pm: Bool)? {
        guard word.hasSuffix("pm") || word.hasSuffix("am"), let hour = Int(word.dropLast(2)), (1...12).contains(hour) else { return nil }
        return (hour, word.hasSuffix("pm"))
    }
}
