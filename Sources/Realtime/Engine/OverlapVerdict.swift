import Foundation

/// What the caller's speech over the agent turned out to be, once its words are known.
public enum OverlapVerdict: Sendable, Equatable {
    /// Words that take the turn: the agent is cut.
    case interruption
    /// The caller is listening ("mm-hmm", "yeah", "네"): the agent plays on; the words are kept
    /// in the transcript as a backchannel.
    case backchannel(String)
    /// No words (a cough, a door, line noise past the VAD): the agent plays on from where it was held.
    case noWords

    /// Judges `text` heard over the agent: only backchannel words, or fewer than `minimumWords`
    /// other words, do not take the turn; nothing but fillers ("um", "ahem") is no words.
    public static func judging(_ text: String, minimumWords: Int = 1) -> OverlapVerdict {
        let words = Self.words(text)
        guard !words.isEmpty else { return .noWords }
        var rest = words.joined(separator: " ")
        for phrase in phrases { rest = rest.replacingOccurrences(of: phrase, with: " ") }
        let others = rest.split(separator: " ").filter { !backchannelWords.contains(String($0)) }
        return others.count >= max(1, minimumWords) ? .interruption : .backchannel(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Whether `text` over the agent is too little to take the turn unless it answers the question
    /// (the engine knows that): one or two words, none of them a bid for the turn. Words the
    /// recognizer made of a short sound ("Mm-hmm" on an 8 kHz line: "Amend them") cut the agent
    /// before its question was out, and the caller was asked again for a reply never given.
    public static func isAside(_ text: String) -> Bool {
        let words = Self.words(text)
        guard let last = words.last, words.count <= 2, !openings.contains(last) else { return false }
        return !words.contains { turnBids.contains($0) }
    }

    /// The lower-cased words of `text`, fillers left out.
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber && $0 != "'" }.map(String.init).filter { !fillers.contains($0) }
    }

    /// Words a sentence goes on after ("I …", "My …"): not an aside but the start of a turn.
    static let openings: Set<String> = ["i", "i'm", "it", "it's", "we", "my", "the", "a", "and", "but", "so", "is", "at", "to"]

    /// Words with which a caller takes the turn however few they are ("Wait", "Sorry?", "Who?").
    static let turnBids: Set<String> = [
        "wait", "stop", "hold", "hang", "sorry", "pardon", "excuse", "hello", "hi", "what", "who", "why", "how", "when", "where",
        "no", "yes", "nope", "not", "can't", "don't", "won't", "please", "help", "agent", "person", "human",
        "잠깐만요", "잠깐", "누구세요", "뭐라고요", "아니요", "아뇨",
    ]

    /// Sounds that carry no words: what a recognizer makes of a cough, a breath, a hesitation.
    static let fillers: Set<String> = ["um", "umm", "uh", "er", "erm", "ah", "ahem", "eh", "cough", "음", "어", "아", "그"]

    /// Words that, alone or together, say "go on, I am listening".
    static let backchannelWords: Set<String> = [
        "mm", "mmm", "hmm", "hm", "mhm", "mmhmm", "uhhuh", "huh", "yeah", "yep", "yup", "ok", "okay", "right", "alright", "oh",
        "네", "넵", "예", "응", "네네", "그렇죠", "아하",
    ]

    /// Phrases whose words mean more on their own ("I", "it") and are a backchannel only together
    /// (a recognizer writes "mm-hmm" as two words).
    static let phrases = ["i see", "got it", "all right", "uh huh", "mm hmm"]
}
