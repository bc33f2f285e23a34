/// Asking a question again because the answer was not understood: what the local dialogue says,
/// and how a listener (the simulated callee) tells it from a new question.
public enum Reask {
    /// Nothing usable was heard.
    public static let notCaught = "Sorry, I didn't catch that."
    /// Something was heard but did not answer the question.
    public static let notUnderstood = "Sorry, I didn't quite get that."
    /// The caller said a read-back was wrong.
    public static let readBackWrong = "Sorry about that."

    /// Words that mark a re-ask as a recognizer writes them — the dialogue's own openings (whose
    /// ends an 8 kHz line garbles: "Sorry, I didn't slide that fast"), and what a model asked to
    /// re-ask tends to say ("could you repeat", "say that again").
    static let cues = ["catch", "quite get", "didn't get", "sorry i didn't", "sorry about that", "repeat", "say that again"]

    /// Whether an agent utterance (as heard) asks for the last answer again.
    public static func isReask(_ heard: String) -> Bool {
        let text = " " + ReplyInterpreter.words(heard).joined(separator: " ") + " "
        return cues.contains { text.contains(" \($0) ") }
    }
}
