import Foundation
import Testing
@testable import Dialogue

/// A caller who answers in another of the call's languages: the dialogue speaks it from then on
/// (its phrases, the operator's translated questions, that language's closing), reads the reply by
/// its rules, keeps the answer as said and the questions as the operator wrote them.
@Suite struct LanguageSwitchTests {
    static func koreanCall(languages: [String] = ["en"], translated: Bool = true) -> ScriptedDialogue {
        var context = ConversationContext(purpose: "정기 점검 예약", questions: ["목요일 오전에 방문하실 수 있나요?", "몇 분이 오시나요?"], language: "ko",
                                          greetingTemplate: DialoguePhrases.korean.greeting, closingTemplate: DialoguePhrases.korean.closing)
        context.languages = languages
        if translated {
            context.translations = ["en": ConversationTranslation(purpose: "your regular check-up", questions: ["Can you come on Thursday morning?", "How many of you are coming?"])]
        }
        var dialogue = ScriptedDialogue(context: context)
        _ = dialogue.start()
        return dialogue
    }

    @Test func anEnglishReplyOnAKoreanCallIsAnsweredInEnglish() {
        var dialogue = Self.koreanCall()
        let switched = dialogue.speaking("en")
        #expect(switched && dialogue.language == "en")
        let next = dialogue.caller(said: "Sure, I can make it.")
        #expect(next == .ask(text: "Thank you. How many of you are coming?", questionIndex: 1))
        #expect(dialogue.tracker.answers[0].status == .answered && dialogue.tracker.answers[0].answerSummary == "yes")
        #expect(dialogue.tracker.answers[0].answerText == "Sure, I can make it.", "the answer as it was said")
        #expect(dialogue.tracker.answers[0].question == "목요일 오전에 방문하실 수 있나요?", "the question as the operator wrote it")
        guard case .close(let closing) = dialogue.caller(said: "Three of us.") else { Issue.record("no close"); return }
        #expect(closing.hasSuffix(DialoguePhrases.english.closing), "the closing in the caller's language: \(closing)")
        #expect(dialogue.tracker.answers[1].answerSummary == "3")
        #expect(dialogue.tracker.languagesSpoken == ["en"])
    }

    /// Back to Korean: the operator's own questions and Korean rules again.
    @Test func theCallerCanSwitchBack() {
        var dialogue = Self.koreanCall()
        dialogue.speaking("en")
        _ = dialogue.caller(said: "Yes.")
        let toKorean = dialogue.speaking("ko")
        #expect(toKorean)
        let last = dialogue.caller(said: "세 명이요.")
        #expect(last == .close(text: DialoguePhrases.korean.closing), "\(last)")
        #expect(dialogue.tracker.answers[1].answerSummary == "3")
        #expect(dialogue.tracker.languagesSpoken == ["en", "ko"])
    }

    /// Only the languages the call lists; a code with its region matches its language.
    @Test func onlyTheCallsLanguagesAreSwitchedTo() {
        var dialogue = Self.koreanCall()
        let unlisted = dialogue.speaking("ja"), same = dialogue.speaking("ko")
        #expect(!unlisted, "not one of the call's")
        #expect(!same, "the one being spoken")
        #expect(dialogue.language == "ko")
        var single = Self.koreanCall(languages: [], translated: false)
        let unlistedEnglish = single.speaking("en")
        #expect(!unlistedEnglish)
        var regional = ConversationContext(purpose: "a visit", questions: ["Can you come?"], language: "en-US")
        regional.languages = ["ko"]
        var dialogue2 = ScriptedDialogue(context: regional)
        _ = dialogue2.start()
        let toKorean = dialogue2.speaking("ko")
        #expect(toKorean && dialogue2.language == "ko")
        let back = dialogue2.speaking("en")
        #expect(back && dialogue2.language == "en-US")
    }

    /// Without a translation the questions are said as written (an LLM engine puts them in the
    /// caller's language); the agent's own words and the closing switch.
    @Test func withoutATranslationTheQuestionsStayAsWritten() {
        var dialogue = Self.koreanCall(translated: false)
        dialogue.speaking("en")
        #expect(dialogue.caller(said: "Yes.") == .ask(text: "Thank you. 몇 분이 오시나요?", questionIndex: 1))
        #expect(dialogue.context.closing == DialoguePhrases.english.closing)
    }

    @Test func theSummaryNamesTheSwitch() {
        var dialogue = Self.koreanCall()
        dialogue.speaking("en")
        _ = dialogue.caller(said: "Yes.")
        let original = Self.koreanCall().context
        let result = ConversationResult(tracker: dialogue.tracker, transcript: [], durationSeconds: 30, context: original)
        #expect(result.summary.contains("상대방이 통화 중 언어를 바꿨습니다: ko → en."), "\(result.summary)")
    }

    @Test func translationsAreChecked() {
        let questions = ["Q1?", "Q2?"]
        func problems(_ languages: [String], _ translations: [String: ConversationTranslation]) -> [String] {
            ConversationTranslation.problems(language: "ko", languages: languages, translations: translations, questions: questions) { $0.count == 2 }.map(\.field)
        }
        #expect(problems(["en"], ["en": .init(questions: ["A?", "B?"])]).isEmpty)
        #expect(problems(["en"], [:]).isEmpty, "a translation is optional")
        #expect(problems(["en"], ["en": .init(questions: ["A?"])]) == ["translations.en.questions"])
        #expect(problems(["en"], ["en": .init(questions: ["A?", " "])]) == ["translations.en.questions"])
        #expect(problems(["en"], ["ja": .init(questions: ["A?", "B?"])]) == ["translations.ja"])
        #expect(problems(["en", "en"], [:]) == ["languages"])
        #expect(problems(["en", "ja", "fr", "de"], [:]) == ["languages"])
        #expect(problems(["english"], [:]) == ["languages"])
    }

    /// LLM engines are told the languages and to answer in the caller's.
    @Test func modelsAreToldTheLanguages() {
        let korean = Self.koreanCall().context
        let rule = PromptBuilder.instructions(for: korean)
        #expect(rule.contains("Start in Korean (한국어). The caller may speak Korean (한국어) or English: answer in the language of their last words"))
        #expect(PromptBuilder.instructions(for: Self.koreanCall(languages: [], translated: false).context).contains("Speak only Korean (한국어)."))
    }
}
