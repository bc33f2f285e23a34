import CEspeakNG
import Foundation

extension EspeakSynthesizer {
    /// One clause of text as espeak-ng pronounces it: its phonemes in IPA, and the punctuation
    /// that ended it ("," "." "?" "!" ";" ":"; nil at the end of text without one).
    public struct Clause: Sendable, Equatable {
        public var phonemes: String
        public var punctuation: Character?
    }

    /// `text` as IPA phonemes in `voice`, clause by clause — what a neural voice trained on
    /// espeak-ng's phonemes (`PiperVoice`) speaks from. On the synthesis lane, under the library's
    /// lock: the phonemizer shares espeak-ng's one global voice with the synthesizer.
    public static func phonemes(_ text: String, voice: String) async throws -> [Clause] {
        try await lane.run { try phonemesNow(text, voice: voice) }
    }

    private static func phonemesNow(_ text: String, voice: String) throws -> [Clause] {
        try library.withLock { initialized in
            try initialize(&initialized)
            guard espeak_SetVoiceByName(voice) == EE_OK else { throw Failure(description: "espeak-ng has no voice '\(voice)'") }
            return clauses(of: text).compactMap { clause, mark in
                let ipa = clause.withCString { chars in
                    var parts: [String] = []
                    var position: UnsafeRawPointer? = UnsafeRawPointer(chars)
                    // espeak-ng advances `position` past what it translated, to nil at the end.
                    while let start = position, let phonemes = espeak_TextToPhonemes(&position, Int32(espeakCHARS_UTF8), Int32(espeakPHONEMES_IPA)) {
                        parts.append(String(cString: phonemes))
                        if let next = position, next <= start { break }   // no progress: never loop
                    }
                    return parts.joined(separator: " ").trimmingCharacters(in: .whitespaces)
                }
                return ipa.isEmpty ? nil : Clause(phonemes: ipa, punctuation: mark)
            }
        }
    }

    /// `text` cut after each "," "." "?" "!" ";" ":" that ends a clause (followed by a space or
    /// the end: "10:30" and "2.5" stay whole), each with its mark. espeak-ng's phonemizer drops
    /// the punctuation, which a voice needs for its pauses and its question's rise.
    static func clauses(of text: String) -> [(text: String, mark: Character?)] {
        var result: [(String, Character?)] = []
        var current = ""
        let characters = Array(text)
        for (i, c) in characters.enumerated() {
            current.append(c)
            if ",.?!;:".contains(c), i + 1 == characters.count || characters[i + 1].isWhitespace {
                result.append((String(current.dropLast()), c))
                current = ""
            }
        }
        if !current.trimmingCharacters(in: .whitespaces).isEmpty { result.append((current, nil)) }
        return result
    }
}
