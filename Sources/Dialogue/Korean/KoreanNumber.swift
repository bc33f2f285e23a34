/// Numbers as Korean callers say them, in a recognizer's text: digit by digit in Sino-Korean for a
/// phone number ("공일공 일이삼사 오육칠팔"), native numerals before a counter ("세 명", "두 시",
/// "열두 개"), Sino-Korean with its units for amounts ("오만 원", "삼천오백"), and written digits
/// ("010-1234-5678", "3명", "5만 원"), which is how Whisper often writes them.
enum KoreanNumber {
    static let sinoDigits: [Character: Int] = ["공": 0, "영": 0, "일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "륙": 6, "칠": 7, "팔": 8, "구": 9]
    static let sinoUnits: [Character: Int] = ["십": 10, "백": 100, "천": 1000]
    /// Native numerals, the counting forms first ("한 명") then the standalone ones ("하나").
    static let native: [(word: String, value: Int)] = [
        ("열한", 11), ("열두", 12), ("열세", 13), ("열네", 14), ("열다섯", 15), ("스무", 20), ("스물", 20), ("서른", 30), ("마흔", 40), ("쉰", 50),
        ("하나", 1), ("한", 1), ("둘", 2), ("두", 2), ("셋", 3), ("세", 3), ("넷", 4), ("네", 4), ("다섯", 5), ("여섯", 6), ("일곱", 7),
        ("여덟", 8), ("아홉", 9), ("열", 10),
    ]
    /// Words that count things: a native numeral before one is a count ("네 명" is four people, "네" alone is yes).
    static let counters = ["명", "분", "개", "사람", "살", "마리", "잔", "번", "장", "시간", "대", "권", "병", "시"]
    /// Endings said after a number ("…팔이에요", "…팔입니다") that would read as one more digit.
    static let copulas = ["이에요", "이예요", "입니다", "이고요", "이구요", "이요", "이고", "예요", "에요"]

    /// The longest run of digits, written or Sino-Korean, across spaces, hyphens and dots.
    static func digitRun(in text: String) -> String {
        var cleaned = text
        for ending in copulas { cleaned = cleaned.replacingOccurrences(of: ending, with: " ") }
        var best = "", current = ""
        for character in cleaned {
            if let digit = character.wholeNumberValue, character.isASCII {
                current.append(Character(String(digit)))
            } else if let digit = sinoDigits[character] {
                current.append(Character(String(digit)))
            } else if character == " " || character == "-" || character == "." || character == "," || character == "에" && !current.isEmpty {
                continue   // "공일공에 일이삼사": 에 joins the groups as a hyphen does
            } else {
                if current.count > best.count { best = current }
                current = ""
            }
        }
        return current.count > best.count ? current : best
    }

    /// A count or an amount: "세 명" → 3, "3명" → 3, "오만 원" → 50000, "5만" → 50000; nil when none.
    /// The number's end in `text` comes with it, so a currency after it can be read.
    static func firstNumber(in text: String) -> (value: Int, rest: Substring)? {
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let rest = String(characters[index...])
            let startsWord = index == 0 || characters[index - 1] == " "
            if characters[index].isASCII, characters[index].isNumber {
                let digits = rest.prefix { $0.isASCII && $0.isNumber }
                var value = Int(digits) ?? 0
                let after = rest.dropFirst(digits.count).drop { $0 == " " }
                if after.hasPrefix("만") { value *= 10_000; return (value, after.dropFirst().drop { $0 == " " }) }
                if after.hasPrefix("천") { value *= 1_000; return (value, after.dropFirst().drop { $0 == " " }) }
                return (value, after)
            }
            if startsWord, let (value, length) = nativeNumber(at: rest) {
                let after = rest.dropFirst(length).drop { $0 == " " }
                let next = rest.dropFirst(length)
                let standalone = next.isEmpty || !(next.first?.isLetter ?? false) || (copulas + ["요"]).contains(where: next.hasPrefix)
                if counters.contains(where: after.hasPrefix) || standalone && ["하나", "둘", "셋", "넷", "다섯", "여섯", "일곱", "여덟", "아홉", "열"].contains(String(rest.prefix(length))) {
                    return (value, after)
                }
            }
            if startsWord, let (value, length) = sinoNumber(at: rest), value >= 10 || rest.dropFirst(length).drop(while: { $0 == " " }).hasPrefix("원") {
                return (value, rest.dropFirst(length).drop { $0 == " " })
            }
            index += 1
        }
        return nil
    }

    /// A native numeral at the start of `text`: "스물다섯" → 25, "열두" → 12; its value and length.
    static func nativeNumber(at text: String) -> (value: Int, length: Int)? {
        guard let tens = native.first(where: { text.hasPrefix($0.word) }) else { return nil }
        var value = tens.value, length = tens.word.count
        if [10, 20, 30, 40, 50].contains(value), let unit = native.first(where: { $0.value < 10 && text.dropFirst(length).hasPrefix($0.word) }) {
            value += unit.value
            length += unit.word.count
        }
        return (value, length)
    }

    /// A Sino-Korean number at the start of `text`: "삼천오백" → 3500, "오만" → 50000, "이십" → 20.
    static func sinoNumber(at text: String) -> (value: Int, length: Int)? {
        var total = 0, section = 0, digit: Int?, length = 0
        for character in text {
            if let d = sinoDigits[character], d > 0 {
                guard digit == nil else { break }
                digit = d
            } else if let unit = sinoUnits[character] {
                section += (digit ?? 1) * unit
                digit = nil
            } else if character == "만" {
                total += (section + (digit ?? 0)) * 10_000
                if section == 0 && digit == nil { total += 10_000 }
                section = 0
                digit = nil
            } else {
                break
            }
            length += 1
        }
        let value = total + section + (digit ?? 0)
        return length > 0 && value > 0 ? (value, length) : nil
    }

    /// The native counting form of 1–99 ("두", "열두", "스물다섯"): how hours and counts are said.
    static func nativeWord(_ value: Int) -> String? {
        guard (1...99).contains(value) else { return nil }
        let units = ["", "한", "두", "세", "네", "다섯", "여섯", "일곱", "여덟", "아홉"]
        let tens = ["", "열", "스물", "서른", "마흔", "쉰", "예순", "일흔", "여든", "아흔"]
        let ten = value / 10, unit = value % 10
        if unit == 0 && ten == 2 { return "스무" }
        return tens[ten] + units[unit]
    }

    /// Digits one by one in Sino-Korean ("010" → "공일공"): how phone numbers are read out.
    static func sinoDigitWords(_ digits: some StringProtocol) -> String {
        let names = ["공", "일", "이", "삼", "사", "오", "육", "칠", "팔", "구"]
        return String(digits.compactMap { $0.wholeNumberValue.map { names[$0] } }.joined())
    }
}
