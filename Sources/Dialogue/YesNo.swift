/// Yes or no in a reply, with the usual variants and negations: the first marker said decides
/// ("No, the original location is fine." is a no; "Sure, why not" a yes; "I don't think so" a no;
/// "Please don't" a no, though "please" alone is a yes — and "Please connect me to …" neither).
public enum YesNo {
    /// Phrases matched longest first at each position, so "of course not" beats "of course".
    static let noes = [
        "i don't think so", "i do not think so", "not really", "not at all", "of course not", "afraid not", "unfortunately not",
        "please don't", "please do not", "i can't", "i cannot", "i won't", "i will not", "i'm not", "i am not", "don't", "doesn't", "no", "nope", "nah", "never",
        "negative", "not", "can't", "cannot", "won't", "isn't", "aren't", "wouldn't", "couldn't", "course not",
    ]
    static let yeses = [
        "why not", "of course", "sounds good", "that works", "works for me", "that's right", "that is right", "i can", "i will",
        "i'll", "i do", "i would", "yes", "yeah", "yep", "yup", "sure", "certainly", "absolutely", "definitely", "correct", "right",
        "ok", "okay", "alright", "fine", "affirmative", "indeed", "please do", "please",
    ]
    /// Phrases matched longest first at each position, so "of course not" beats "of course".
    static let markers: [(words: [String], yes: Bool)] = {
        let all: [(String, Bool)] = noes.map { ($0, false) } + yeses.map { ($0, true) }
        let split: [(words: [String], yes: Bool)] = all.map { (words: $0.0.split(separator: " ").map(String.init), yes: $0.1) }
        return split.sorted { $0.words.count > $1.words.count }
    }()

    /// true for yes, false for no, nil when the reply says neither.
    static func polarity(of words: [String]) -> Bool? {
        for start in words.indices {
            for marker in markers where start + marker.words.count <= words.count {
                guard Array(words[start..<(start + marker.words.count)]) == marker.words else { continue }
                // "Please" said last ("Please." "Yes, please.") assents; opening a request it does not: a
                // misheard "Please connect me to an operator." was stored as a yes to "Can you attend?".
                if marker.words == ["please"], start < words.count - 1 { continue }
                if marker.words == ["not"], isContrast(words, at: start) { continue }
                return marker.yes
            }
        }
        return nil
    }

    /// Whether the "not" at `index` sets one thing against another ("It's a cat, not a dog",
    /// "Tuesday, not the Monday") — it corrects what was asked about and answers nothing — rather
    /// than negating a verb ("It's not a problem", "Sadly not the one you mean"): a thing named on
    /// both sides of it, and no verb right before it.
    static func isContrast(_ words: [String], at index: Int) -> Bool {
        guard index > 0, index + 1 < words.count, determiners.contains(words[index + 1]),
              words[max(0, index - 4)..<index].contains(where: determiners.contains) else { return false }
        let before = words[index - 1]
        return !verbsBeforeNot.contains(before) && !contractedVerbEndings.contains(where: before.hasSuffix)
    }
    /// A verb contracted onto the word before "not" ("it's", "we're", "I'd", "isn't").
    static let contractedVerbEndings = ["'s", "'re", "'m", "'d", "'ll", "n't"]
    static let determiners: Set<String> = ["a", "an", "the", "my", "his", "her", "our", "their", "your"]
    /// The verbs a "not" after which negates the verb: "is not a …", "was not the …", "do not …".
    static let verbsBeforeNot: Set<String> = ["is", "was", "are", "were", "am", "be", "been", "being", "do", "does", "did", "have", "has",
                                              "had", "will", "would", "can", "could", "should", "shall", "may", "might", "must", "rather",
                                              "certainly", "definitely", "probably", "really", "just", "why", "if", "or", "absolutely"]

    /// true for yes, false for no, nil when `text` says neither.
    public static func answer(in text: String) -> Bool? { polarity(of: ReplyInterpreter.words(text)) }
}
