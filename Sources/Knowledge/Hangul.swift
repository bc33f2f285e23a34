/// Hangul syllables (U+AC00–U+D7A3): what marks text as Korean for the knowledge index, the
/// dialogue's Korean rules and the simulated callee's Korean voice.
public enum Hangul {
    public static func isSyllable(_ scalar: Unicode.Scalar) -> Bool { (0xAC00...0xD7A3).contains(scalar.value) }

    /// Whether `text` holds any Hangul syllable.
    public static func occurs(in text: some StringProtocol) -> Bool { text.unicodeScalars.contains(where: isSyllable) }
}
