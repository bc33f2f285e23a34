/// Numbers as people say them on the phone ("zero one zero, double five …", "a hundred and
/// fifty", "3"), read from a recognizer's lower-cased words.
enum SpokenNumber {
    static let digitWords: [String: Character] = [
        "zero": "0", "oh": "0", "o": "0", "nought": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
        "six": "6", "seven": "7", "eight": "8", "nine": "9",
    ]
    static let small: [String: Int] = [
        "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
        "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
        "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    ]
    static let ordinals: [String: Int] = [
        "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
        "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17,
        "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
    ]

    /// Words that make a "one" up to three words after them a pronoun ("the one", "that red one").
    static let pronounOneDeterminers: Set<String> = ["the", "this", "that", "which", "any", "each", "every", "another", "other"]

    /// Whether the word at `index` is "one" as a pronoun ("the blue one", "the two o'clock one"), not a number.
    static func isPronounOne(at index: Int, in words: [String]) -> Bool {
        words[index] == "one" && words[max(0, index - 3)..<index].contains(where: pronounOneDeterminers.contains)
    }

    /// Whether `word` is digits as written ("555", "0198").
    static func isWrittenDigits(_ word: String) -> Bool { word.allSatisfy { $0.isASCII && $0.isNumber } }

    /// The longest run of spoken or written digits ("oh one oh, one two three four" → "0101234";
    /// "double five" → "55"; "010-1234-5678" arrives as three tokens) and whether it began with
    /// "plus".
    static func digitRun(in words: [String]) -> (digits: String, plus: Bool) {
        var best = (digits: "", plus: false)
        var current = "", plus = false, repeatCount = 1
        func endRun() {
            if current.count > best.digits.count { best = (current, plus) }
            current = ""; plus = false; repeatCount = 1
        }
        for word in words {
            if word == "plus" || word == "+" { endRun(); plus = true; continue }
            if word.hasPrefix("+"), word.count > 1, word.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) {   // "+44"
                endRun(); plus = true; current = String(word.dropFirst()); continue
            }
            if word == "double" { repeatCount = 2; continue }
            if word == "triple" { repeatCount = 3; continue }
            if let digit = digitWords[word] {
                current += String(repeating: digit, count: repeatCount); repeatCount = 1
            } else if isWrittenDigits(word) {
                current += String(repeating: word, count: repeatCount); repeatCount = 1
            } else if word == "dash" || word == "and" || word == "hyphen" {
                continue
            } else {
                endRun()
            }
        }
        endRun()
        return best
    }

    /// The first whole number said ("twenty five" → 25, "a hundred and fifty" → 150, "3" → 3)
    /// and the index just past it.
    static func firstInteger(in words: [String], from start: Int = 0) -> (value: Int, end: Int, at: Int)? {
        var i = start
        while i < words.count {
            if let parsed = integer(startingAt: i, in: words) { return (parsed.value, parsed.end, i) }
            i += 1
        }
        return nil
    }

    /// A number starting exactly at `index`, or nil.
    static func integer(startingAt index: Int, in words: [String]) -> (value: Int, end: Int)? {
        let word = words[index]
        if word.allSatisfy(\.isASCII), let value = Int(word.filter { $0 != "," }), !word.isEmpty { return (value, index + 1) }
        var total = 0, group = 0, i = index, seen = false
        while i < words.count {
            let w = words[i]
            if let value = small[w] {
                // "twenty five" adds; "five twenty" is two numbers.
                if seen, group % 10 != 0 || value >= 10 && group % 100 != 0 { break }
                group += value; seen = true
            } else if ["a", "an", "the"].contains(w), i + 1 < words.count, ["hundred", "thousand"].contains(words[i + 1]), !seen {
                // "a hundred and fifty"; "the hundred dollars"
                group = 1; seen = true
            } else if w == "hundred", seen {
                group *= 100
            } else if w == "thousand" || w == "million", seen {
                total += group * (w == "thousand" ? 1000 : 1_000_000); group = 0
            } else if w == "and", seen, i + 1 < words.count, small[words[i + 1]] != nil {
                // "a hundred and fifty"
            } else {
                break
            }
            i += 1
        }
        return seen ? (total + group, i) : nil
    }
}
