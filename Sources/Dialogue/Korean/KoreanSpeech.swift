import Foundation

/// Korean text made ready for a speech synthesizer, numbers the way Korean speakers say them:
/// espeak-ng reads every written number in Sino-Korean, so "2시" would be "이 시" and "3명" "삼 명";
/// people say "두 시" and "세 명" (native numerals before these counters), and read a phone number
/// digit by digit in groups ("공일공, 일이삼사, 오육칠팔").
public enum KoreanSpeech {
    /// Counters whose number is said in native Korean.
    static let nativeCounters = ["시간", "시", "명", "개", "살", "마리", "잔", "번째", "번", "장", "대", "권", "병", "사람"]

    /// `text` with its numbers written as they are said.
    public static func speakable(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let start = rest.firstIndex(where: { $0.isASCII && $0.isNumber }) {
            out += rest[..<start]
            let run = rest[start...].prefix { $0.isASCII && ($0.isNumber || $0 == "-") }
            let digits = run.filter(\.isNumber)
            let after = rest[start...].dropFirst(run.count)
            if run.contains("-") || digits.count >= 9 {
                out += phoneGroups(String(digits))
            } else if let value = Int(digits), let counter = nativeCounters.first(where: { after.drop(while: { $0 == " " }).hasPrefix($0) }),
                      let word = KoreanNumber.nativeWord(value) {
                out += word + " " + counter
                rest = after.drop(while: { $0 == " " }).dropFirst(counter.count)
                continue
            } else {
                out += run
            }
            rest = after
        }
        return out + rest
    }

    /// A phone number's digits in Sino-Korean, grouped as written (3-4-4, 3-3-4, else threes).
    static func phoneGroups(_ digits: String) -> String {
        var chars = Array(digits), groups: [String] = []
        let sizes: [Int] = chars.count == 11 ? [3, 4, 4] : chars.count == 10 ? [3, 3, 4] : []
        for size in sizes { groups.append(String(chars.prefix(size))); chars.removeFirst(size) }
        while !chars.isEmpty { groups.append(String(chars.prefix(3))); chars.removeFirst(min(3, chars.count)) }
        return groups.map(KoreanNumber.sinoDigitWords).joined(separator: ", ")
    }

    /// An answer as the Korean dialogue reads it back: "+821012345678" → "공일공, 일이삼사, 오육칠팔",
    /// "2026-11-27T14:00" → "11월 27일 오후 두 시", "50000 KRW" → "50000원".
    static func readBack(_ summary: String, as kind: AnswerKind, now: Date, calendar: Calendar) -> String {
        switch kind {
        case .phoneNumber:
            let digits = summary.filter(\.isNumber)
            return phoneGroups(summary.hasPrefix("+82") ? "0" + digits.dropFirst(2) : digits)
        case .dateTime: return dateTime(summary)
        case .number: return summary.replacingOccurrences(of: " KRW", with: "원").replacingOccurrences(of: " USD", with: "달러")
        default: return summary
        }
    }

    /// "2026-11-27T14:30" → "11월 27일 오후 두 시 반"; a day or a time alone likewise.
    static func dateTime(_ iso: String) -> String {
        let parts = iso.split(separator: "T").map(String.init)
        var said: [String] = []
        if let day = parts.first(where: { $0.contains("-") }) {
            let fields = day.split(separator: "-").compactMap { Int($0) }
            if fields.count == 3 { said.append("\(fields[1])월 \(fields[2])일") }
        }
        if let time = parts.first(where: { $0.contains(":") }) {
            let fields = time.split(separator: ":").compactMap { Int($0) }
            if fields.count == 2 {
                let hour = fields[0] % 12 == 0 ? 12 : fields[0] % 12
                said.append((fields[0] < 12 ? "오전 " : "오후 ") + (KoreanNumber.nativeWord(hour) ?? "\(hour)") + " 시")
                if fields[1] == 30 { said.append("반") } else if fields[1] > 0 { said.append("\(fields[1])분") }
            }
        }
        return said.isEmpty ? iso : said.joined(separator: " ")
    }
}
