import Foundation
import Testing
@testable import Dialogue

/// The dialogue weighs how sure the recognizer was before it stores an answer: below the floor,
/// what was heard is kept as `unclear` and the question asked once more; a second unsure answer
/// leaves it `unclear` and the dialogue moves on; a sure one is stored with its score.
@Suite struct AnswerConfidenceTests {
    struct Case: Sendable, CustomStringConvertible {
        var language: String?
        var questions: [String]
        var reply: String
        var summary: String
        var description: String { language ?? "en" }
    }

    static let cases = [
        Case(language: nil, questions: ["Will you be there on Friday?", "Shall we send the agenda?"], reply: "Sure, I will.", summary: "yes"),
        Case(language: "ko", questions: ["금요일에 오시나요?", "안건을 보내 드릴까요?"], reply: "네, 갈게요.", summary: "yes"),
    ]

    static func dialogue(_ c: Case, floor: Double) -> ScriptedDialogue {
        var context = ConversationContext(purpose: "a meeting", questions: c.questions)
        context.language = c.language ?? "en"
        context.answerConfidence = AnswerConfidence(floor: floor)
        var dialogue = ScriptedDialogue(context: context)
        _ = dialogue.start()
        return dialogue
    }

    @Test(arguments: cases)
    func anUnsureAnswerIsAskedAgainThenLeftUnclear(_ c: Case) {
        var dialogue = Self.dialogue(c, floor: 0.5)
        guard case .ask(let again, 0) = dialogue.caller(said: c.reply, confidence: 0.3) else { Issue.record("not asked again"); return }
        #expect(again.hasSuffix(c.questions[0]) && again != c.questions[0], "a re-ask with an apology: \(again)")
        let first = dialogue.tracker.answers[0]
        #expect(first.status == .unclear && first.answerText == c.reply && first.answerSummary == nil && first.timesAsked == 2)
        guard case .ask(let next, 1) = dialogue.caller(said: c.reply, confidence: 0.3) else { Issue.record("did not move on"); return }
        #expect(next.hasSuffix(c.questions[1]))
        #expect(dialogue.tracker.answers[0].status == .unclear && dialogue.tracker.answers[0].answerText == c.reply, "never answered")
    }

    @Test(arguments: cases)
    func aSureAnswerAfterTheReaskIsStoredWithItsScore(_ c: Case) {
        var dialogue = Self.dialogue(c, floor: 0.5)
        _ = dialogue.caller(said: c.reply, confidence: 0.3)
        _ = dialogue.caller(said: c.reply, confidence: 0.8)
        let answer = dialogue.tracker.answers[0]
        #expect(answer.status == .answered && answer.answerSummary == c.summary)
        #expect(abs(answer.confidence - 0.9 * 0.8) < 1e-9, "the reading's 0.9 times the recognizer's 0.8: \(answer.confidence)")
    }

    @Test(arguments: cases)
    func withTheFloorOffWhateverIsReadIsStored(_ c: Case) {
        var dialogue = Self.dialogue(c, floor: 0)
        guard case .ask(_, 1) = dialogue.caller(said: c.reply, confidence: 0.01) else { Issue.record("asked again with the floor off"); return }
        #expect(dialogue.tracker.answers[0].status == .answered && dialogue.tracker.answers[0].answerSummary == c.summary)
    }

    /// A refusal or a question back is no value to act on: it is taken however unsure.
    @Test func aRefusalIsNotWeighed() {
        var dialogue = Self.dialogue(Self.cases[0], floor: 0.9)
        _ = dialogue.caller(said: "I'd rather not say.", confidence: 0.2)
        #expect(dialogue.tracker.answers[0].status == .refused)
    }
}
