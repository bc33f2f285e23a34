/// A greedy decoder caught in a loop: both recognizers' decoding is ours, and both can say the
/// same phrase over and over (Whisper on silence; Moonshine on a long turn over an 8 kHz line:
/// "No um no no no no …" thirty times, a phone number said three times over in one answer).
enum DecoderLoop {
    /// `tokens` with a run at its end that says the phrase before it `times` times in all cut back
    /// to one saying of it, or nil when it does not end so. `times` may depend on the phrase's
    /// length: a digit said four times is a phone number's "four four four four", not a loop.
    static func cut<Token: Equatable>(_ tokens: [Token], times: (_ length: Int) -> Int) -> [Token]? {
        for length in 1...8 {
            let count = max(2, times(length))
            guard tokens.count >= count * length else { continue }
            let phrase = tokens.suffix(length)
            let repeated = (1..<count).allSatisfy { k in Array(tokens.dropLast(k * length).suffix(length)) == Array(phrase) }
            if repeated { return Array(tokens.dropLast((count - 1) * length)) }
        }
        return nil
    }
}
