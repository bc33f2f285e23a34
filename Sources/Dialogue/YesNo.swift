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
                return marker.yes
            }
        }
        return nil
    }

    /// true for yes, false for no, nil when `text` says neither.
    public static func answer(in text: String) -> Bool? { polarity(of: ReplyInterpreter.words(text)) }
}
