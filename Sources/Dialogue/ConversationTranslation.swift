/// What a call says in another language its caller may switch to (a template's `translations`):
/// the local engine has no model to translate with, so the operator writes the questions (and, if
/// they want, the purpose and closing) in each language the call lists. An LLM engine translates
/// for itself and needs none.
public struct ConversationTranslation: Codable, Sendable, Equatable {
    /// Said when the caller asks who is calling; nil: the call's own purpose.
    public var purpose: String?
    /// The call's questions in this language, one for each, in the same order.
    public var questions: [String]
    /// Said last; nil: the language's default closing.
    public var closing: String?

    public init(purpose: String? = nil, questions: [String], closing: String? = nil) {
        self.purpose = purpose
        self.questions = questions
        self.closing = closing
    }

    /// At most this many languages besides the call's own.
    public static let languagesMax = 3

    /// What is wrong with a call's `languages` and `translations` (`field`, message) — its own
    /// `language` first, `questions` as the operator wrote them; empty: nothing.
    public static func problems(language: String, languages: [String], translations: [String: ConversationTranslation],
                                questions: [String], isLanguageCode: (String) -> Bool) -> [(field: String, message: String)] {
        var problems: [(String, String)] = []
        let others = languages.filter { $0 != language }
        if others.count > languagesMax || Set(others).count != others.count || !others.allSatisfy(isLanguageCode) {
            problems.append(("languages", "lists up to \(languagesMax) language codes (en, ko) the caller may switch to, each once"))
        }
        for (code, translation) in translations.sorted(by: { $0.key < $1.key }) {
            guard others.contains(code) else {
                problems.append(("translations.\(code)", "\(code) is not one of the call's other languages (languages)"))
                continue
            }
            if translation.questions.count != questions.count || translation.questions.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                problems.append(("translations.\(code).questions", "must hold the call's \(questions.count) questions in \(code), in order, none empty"))
            }
        }
        return problems
    }
}

extension ConversationContext {
    /// The languages the caller may speak: the call's own first.
    public var spokenLanguages: [String] { [language] + languages.filter { $0 != language } }

    /// This call as said in `code` after the caller switched to it: its questions and purpose from
    /// the translation where the operator wrote one (else as they were), its closing the
    /// translation's or the language's own — a closing written in one language is not read out by
    /// another's voice.
    public func speaking(_ code: String) -> ConversationContext {
        guard code != language else { return self }
        var switched = self
        switched.language = code
        switched.closingTemplate = translations[code]?.closing ?? DialoguePhrases.of(code).closing
        if let translation = translations[code] {
            switched.questions = translation.questions
            switched.purpose = translation.purpose ?? purpose
        }
        return switched
    }
}
