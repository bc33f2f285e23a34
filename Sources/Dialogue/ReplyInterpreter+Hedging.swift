/// A caller who does not know, or not for certain, or who is not the one to ask: "I'm not sure",
/// "Maybe", "Possibly", "I can't remember", "I don't really know", "I'm not the one who drives it".
/// Such a reply answers no yes/no, free-text or choice question — "Possibly. I can't remember."
/// holds a "can't", and a no stored from it would be a guess.
extension ReplyInterpreter {
    static let hedgePhrases = ["no idea", "no clue", "maybe", "perhaps", "possibly", "might", "can't say", "cannot say", "couldn't say", "could not say",
                               "can't tell", "couldn't tell", "hard to tell", "unsure",
                               "i'll see", "we'll see", "depends", "hard to say",
                               "not the one who", "not the one that", "not the person who", "have to ask", "better ask",
                               // The answer promised for later: "I'll let you know", "… and I'll tell you".
                               "let you know", "i'll tell you", "get back to you"]
    /// Verbs of knowing, and the words that may stand between one and its negation ("not quite sure").
    static let knowingWords: Set<String> = ["know", "sure", "certain", "remember", "recall", "recollect"]
    static let softeners: Set<String> = ["really", "quite", "entirely", "totally", "exactly", "too", "so", "fully", "100"]
    static let knowingNegations: Set<String> = ["don't", "dont", "not", "can't", "cannot", "couldn't", "doesn't", "didn't", "never"]

    /// Whether the reply hedges: a hedging phrase, or a verb of knowing negated ("don't know", "I'm not
    /// certain", "can't quite recall").
    static func hedges(_ words: [String]) -> Bool {
        if says(hedgePhrases, in: words) { return true }
        return words.indices.contains { i in
            guard knowingWords.contains(words[i]), i > 0 else { return false }
            let before = softeners.contains(words[i - 1]) && i > 1 ? i - 2 : i - 1
            return knowingNegations.contains(words[before])
        }
    }
}
