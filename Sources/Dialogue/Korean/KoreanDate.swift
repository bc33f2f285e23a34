import Foundation

/// Days and times as Korean callers say them: "내일 오후 두 시", "다음 주 월요일", "모레 10시 반",
/// "12월 3일 오전 열한 시 삼십 분" — normalised as `SpokenDate` normalises English (ISO 8601:
/// `2026-11-27T14:00`, a day alone `2026-11-27`, a time alone `14:00`).
struct KoreanDate: Sendable {
    let now: Date
    let calendar: Calendar

    static let relativeDays = ["오늘": 0, "내일": 1, "모레": 2, "글피": 3]
    static let weekdays: [String: Int] = ["일요일": 1, "월요일": 2, "화요일": 3, "수요일": 4, "목요일": 5, "금요일": 6, "토요일": 7]

    func iso(in text: String) -> String? {
        let compact = text.replacingOccurrences(of: " ", with: "")
        switch (day(in: compact), time(in: text)) {
        case (let day?, let time?): return String(format: "%@T%02d:%02d", day, time.hour, time.minute)
        case (let day?, nil): return day
        case (nil, let time?): return String(format: "%02d:%02d", time.hour, time.minute)
        case (nil, nil): return nil
        }
    }

    /// The day said, as `YYYY-MM-DD`; `text` without spaces.
    func day(in text: String) -> String? {
        let today = calendar.startOfDay(for: now)
        func format(_ date: Date) -> String {
            let c = calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
        }
        if let (name, weekday) = Self.weekdays.first(where: { text.contains($0.key) }) {
            let current = calendar.component(.weekday, from: today)
            // Weeks start on Monday: "다음 주 월요일" is the Monday of the week after this one.
            let mondayBased = { (weekday: Int) in (weekday + 5) % 7 }
            let thisWeeks = calendar.date(byAdding: .day, value: mondayBased(weekday) - mondayBased(current), to: today)!
            let before = text.components(separatedBy: name)[0]
            if before.hasSuffix("다음주") || before.hasSuffix("담주") { return format(calendar.date(byAdding: .day, value: 7, to: thisWeeks)!) }
            if before.hasSuffix("이번주") { return format(thisWeeks) }
            let ahead = (weekday - current + 7) % 7
            return format(calendar.date(byAdding: .day, value: ahead == 0 ? 7 : ahead, to: today)!)
        }
        if let month = number(before: "월", in: text), (1...12).contains(month), let dayNumber = number(before: "일", in: text, after: "월"), (1...31).contains(dayNumber) {
            var components = calendar.dateComponents([.year], from: today)
            components.month = month
            components.day = dayNumber
            guard var date = calendar.date(from: components) else { return nil }
            if date < today { date = calendar.date(byAdding: .year, value: 1, to: date)! }
            return format(date)
        }
        if let (_, offset) = Self.relativeDays.first(where: { text.contains($0.key) }) {
            return format(calendar.date(byAdding: .day, value: offset, to: today)!)
        }
        return nil
    }

    /// The hour (native "두 시", written "2시", Sino "이 시") with its minutes ("반", "삼십 분", "30분"),
    /// morning or afternoon as said (오전/아침, 오후/저녁/밤), else an hour of 1–7 is the afternoon.
    func time(in text: String) -> (hour: Int, minute: Int)? {
        let compact = text.replacingOccurrences(of: " ", with: "")
        guard let hour = number(before: "시", in: compact), (0...24).contains(hour) else {
            if compact.contains("정오") { return (12, 0) }
            return nil
        }
        var minute = 0
        let after = compact.components(separatedBy: "시").dropFirst().joined(separator: "시")
        if after.hasPrefix("반") { minute = 30 } else if let m = number(before: "분", in: after), (0...59).contains(m) { minute = m }
        var hour24 = hour
        if ["오후", "저녁", "밤"].contains(where: compact.contains) {
            if hour < 12 { hour24 += 12 }
        } else if ["오전", "아침", "새벽"].contains(where: compact.contains) {
            if hour == 12 { hour24 = 0 }
        } else if (1...7).contains(hour) {
            hour24 += 12   // "두 시" on a business call is the afternoon
        }
        return (hour24, minute)
    }

    /// The number just before `marker` in `text` (no spaces): written, native or Sino-Korean.
    /// `after`: only past this marker's first occurrence.
    func number(before marker: String, in text: String, after: String? = nil) -> Int? {
        var text = Substring(text)
        if let after, let range = text.range(of: after) { text = text[range.upperBound...] }
        guard let range = text.range(of: marker) else { return nil }
        let lead = String(text[..<range.lowerBound])
        let digits = lead.reversed().prefix { $0.isASCII && $0.isNumber }
        if !digits.isEmpty { return Int(String(digits.reversed())) }
        for length in stride(from: min(4, lead.count), through: 1, by: -1) {
            let tail = String(lead.suffix(length))
            if let (value, used) = KoreanNumber.nativeNumber(at: tail), used == tail.count { return value }
            if let (value, used) = KoreanNumber.sinoNumber(at: tail), used == tail.count { return value }
        }
        return nil
    }
}
