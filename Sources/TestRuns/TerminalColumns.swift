/// How many columns a terminal gives a text: Hangul, CJK and full-width forms take two, combining
/// marks none, the rest one (Unicode's East Asian Width, the wide and full-width ranges). Tables
/// pad by this, not by characters, so a Korean persona's row lines up with the others.
enum TerminalColumns {
    static func count(_ text: String) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    /// `text` followed by spaces up to `width` columns (never cut).
    static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - count(text)))
    }

    private static func columns(of character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        if scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .enclosingMark { return 0 }
        return wide.contains { $0.contains(scalar.value) } ? 2 : 1
    }

    private static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F,   // Hangul Jamo, leading consonants
        0x2E80...0x303E,   // CJK radicals, punctuation
        0x3041...0x33FF,   // kana, compatibility Jamo, CJK symbols
        0x3400...0x4DBF,   // CJK extension A
        0x4E00...0x9FFF,   // CJK unified ideographs
        0xA960...0xA97F,   // Hangul Jamo extended A
        0xAC00...0xD7A3,   // Hangul syllables
        0xF900...0xFAFF,   // CJK compatibility ideographs
        0xFE30...0xFE4F,   // CJK compatibility forms
        0xFF00...0xFF60,   // full-width forms
        0xFFE0...0xFFE6,
        0x1F300...0x1F64F, // emoji
        0x1F900...0x1F9FF,
        0x20000...0x3FFFD, // CJK extensions B and beyond
    ]
}
