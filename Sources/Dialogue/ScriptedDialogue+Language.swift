/// A caller who switches language: from the first utterance heard in another of the call's
/// languages (`ConversationContext.languages`), the dialogue speaks it — its own phrases, the
/// operator's translated questions — and reads replies by its rules. The answers keep what was
/// said; the questions in the results stay as the operator wrote them.
extension ScriptedDialogue {
    /// The language being spoken.
    public var language: String { context.language }

    /// Switches to `heard` (a recognizer's code: "en") when it is one of the call's languages
    /// ("en", "en-US") and not the one being spoken; returns whether it did.
    @discardableResult
    public mutating func speaking(_ heard: String) -> Bool {
        guard let code = written.spokenLanguages.first(where: { $0.prefix(2) == heard.prefix(2) }),
              code.prefix(2) != context.language.prefix(2) else { return false }
        context = written.speaking(code)
        phrases = DialoguePhrases.of(code)
        interpreter = interpreter.speaking(code)
        tracker.languagesSpoken.append(code)
        return true
    }

    /// Question `index` as the caller hears it: in the language being spoken.
    func question(_ index: Int) -> String {
        context.questions.indices.contains(index) && context.flow == nil ? context.questions[index] : tracker.answers[index].question
    }
}
