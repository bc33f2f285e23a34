import Testing
@testable import Dialogue

@Suite struct ScriptedDialogueTests {
    static let context = ConversationContext(purpose: "confirm tomorrow's 2 pm meeting", questions: ["Can you attend?", "Does the place need to change?"],
                                             displayName: "ABC Company")

    @Test func greetsAsksEachQuestionThanksAndCloses() {
        var d = ScriptedDialogue(context: Self.context)
        #expect(d.start() == .ask(text: "Hello, this is the AI assistant of ABC Company, calling about confirm tomorrow's 2 pm meeting. Can you attend?", questionIndex: 0))
        #expect(d.caller(said: "Yes, I can attend the meeting.") == .ask(text: "Thank you. Does the place need to change?", questionIndex: 1))
        #expect(d.caller(said: "No, the original location is fine.") == .close(text: "Thank you for your time. Have a nice day."))
        #expect(d.tracker.isComplete)
        #expect(d.tracker.answers.map(\.answerSummary) == ["yes", "no"])
    }

    @Test func anUnclearAnswerIsAskedOnceMoreThenTheCallMovesOn() {
        var d = ScriptedDialogue(context: Self.context)
        _ = d.start()
        #expect(d.caller(said: "Hmm, I am not sure yet.") == .ask(text: "Sorry, I didn't quite get that. Can you attend?", questionIndex: 0))
        #expect(d.caller(said: "") == .ask(text: "Does the place need to change?", questionIndex: 1), "unclear twice: move on")
        _ = d.caller(said: "No.")
        let answers = d.tracker.finalAnswers
        #expect(answers[0].status == .unclear && answers[0].timesAsked == 2)
        #expect(answers[1].status == .answered)
        #expect(!d.tracker.isComplete)
    }

    @Test func aRefusalIsRecordedAndTheNextQuestionAsked() {
        var d = ScriptedDialogue(context: Self.context)
        _ = d.start()
        #expect(d.caller(said: "I would rather not answer that.") == .ask(text: "That's all right. Does the place need to change?", questionIndex: 1))
        guard case .close(let text) = d.caller(said: "No.") else { Issue.record("did not close"); return }
        #expect(text.hasSuffix("Have a nice day."))
        #expect(d.tracker.finalAnswers.map(\.status) == [.refused, .answered])
    }

    @Test func whoIsCallingIsAnsweredAndTheQuestionAskedAgain() {
        var d = ScriptedDialogue(context: Self.context)
        _ = d.start()
        #expect(d.caller(said: "Sorry, who is this?") == .ask(text: "This is the AI assistant of ABC Company, calling about confirm tomorrow's 2 pm meeting. Can you attend?",
                                                              questionIndex: 0))
        #expect(d.tracker.answers[0].status == .pending)
    }

    /// On a call the caller made, the agent did not call about anything: it says whose it is.
    @Test func whoIsAnsweredOnAnInboundCallWithoutCallingAbout() {
        for (language, asked, expected) in [("en", "Sorry, who is this?", "This is the AI assistant of ABC Company. Can you attend?"),
                                            ("ko", "누구세요?", "저는 ABC Company의 AI 상담원입니다. Can you attend?")] {
            var context = Self.context
            context.language = language
            context.call.direction = "inbound"
            var d = ScriptedDialogue(context: context)
            _ = d.start()
            #expect(d.caller(said: asked) == .ask(text: expected, questionIndex: 0), "\(language)")
        }
    }

    @Test func silenceIsAskedAboutOnceThenTheCallEndsWithTheQuestionPending() {
        var d = ScriptedDialogue(context: Self.context)
        _ = d.start()
        #expect(d.noReply() == .ask(text: "Hello, are you still there? Can you attend?", questionIndex: 0))
        guard case .close = d.noReply() else { Issue.record("did not close"); return }
        #expect(d.tracker.finalAnswers.map(\.status) == [.pending, .notAsked])
    }

    @Test func aCallbackRequestEndsPolitelyAndIsInTheSummary() {
        var d = ScriptedDialogue(context: Self.context)
        _ = d.start()
        guard case .close(let text) = d.caller(said: "Can you call me back later?") else { Issue.record("did not close"); return }
        #expect(text.contains("call you back"))
        let result = ConversationResult(tracker: d.tracker, transcript: [], durationSeconds: 5, context: Self.context)
        #expect(result.summary.contains("asked to be called back") && result.answers.map(\.status) == [.pending, .notAsked])
    }

    @Test func maxTurnsEndsTheCall() {
        var context = Self.context
        context.maxTurns = 1
        var d = ScriptedDialogue(context: context)
        _ = d.start()
        guard case .close = d.caller(said: "Yes.") else { Issue.record("max_turns not enforced"); return }
    }

    @Test func promptCarriesPurposeQuestionsLanguageAndRules() {
        var context = Self.context
        context.language = "ko"
        let prompt = PromptBuilder.instructions(for: context)
        #expect(prompt.contains("ABC Company") && prompt.contains("confirm tomorrow's 2 pm meeting"))
        #expect(prompt.contains("q1. Can you attend?") && prompt.contains("q2. Does the place need to change?"))
        #expect(prompt.contains("Korean") && prompt.contains("update_task_state") && prompt.contains("[TASK_STATE]"))
        #expect(prompt.contains("ask once more") && prompt.contains("end the call politely"))
    }
}
