import Knowledge
import Testing
@testable import Dialogue

/// The local dialogue with a knowledge base: a caller's question is looked up, a good FAQ match
/// is read out and the question asked again; no match is passed on (an open question), to a
/// person when there is one; a FAQ line asks how it can help and ends when the caller is done.
@Suite struct KnowledgeDialogueTests {
    static let hours = KnowledgeHit(collection: "clinic", document: "faq.csv",
                                    chunk: KnowledgeChunk(title: "What are your opening hours?", text: "We are open 9 to 6.", line: 2, isFAQ: true),
                                    score: 3, coverage: 0.7)

    static func context(questions: [String] = ["Can you attend?"], transfer: String? = nil) -> ConversationContext {
        var context = ConversationContext(purpose: "your appointment", questions: questions, displayName: "Seoul Clinic")
        context.knowledge = ["clinic"]
        context.transferTarget = transfer
        return context
    }

    @Test func aQuestionIsAnsweredFromTheFAQAndTheQuestionAskedAgain() {
        var d = ScriptedDialogue(context: Self.context())
        _ = d.start()
        #expect(d.wantsLookup("What time do you open?"))
        #expect(!d.wantsLookup("Yes, I can attend."))
        #expect(!d.wantsLookup("Can I speak to a person?"), "a request for a person is the dialogue's own")
        #expect(d.caller(asked: "What time do you open?", answer: Self.hours) == .ask(text: "We are open 9 to 6. Now, Can you attend?", questionIndex: 0))
        #expect(d.caller(said: "Yes, I can attend.") == .close(text: "Thank you for your time. Have a nice day."))
        #expect(d.tracker.openQuestions.isEmpty && d.tracker.isComplete)
    }

    @Test func aQuestionWithoutAnAnswerIsPassedOnOrHandedToAPerson() {
        var d = ScriptedDialogue(context: Self.context())
        _ = d.start()
        #expect(d.caller(asked: "Do you sell gift cards?", answer: nil)
                == .ask(text: "I'm sorry, I don't have that information, but I will pass your question on. Now, Can you attend?", questionIndex: 0))
        #expect(d.tracker.openQuestions == ["Do you sell gift cards?"])
        let result = ConversationResult(tracker: d.tracker, transcript: [], durationSeconds: 1, context: d.context)
        #expect(result.openQuestions == ["Do you sell gift cards?"] && result.summary.hasSuffix("Open questions to answer: \"Do you sell gift cards?\"."))

        var staffed = ScriptedDialogue(context: Self.context(transfer: "sip:desk@127.0.0.1"))
        _ = staffed.start()
        #expect(staffed.caller(asked: "Do you sell gift cards?", answer: nil)
                == .transfer(text: "I'm sorry, I don't have that information. I will connect you to a person who can help. One moment, please.",
                             reason: "a question the knowledge base could not answer"))
    }

    @Test func aFAQLineAnswersUntilTheCallerIsDone() {
        var d = ScriptedDialogue(context: Self.context(questions: []))
        #expect(d.start() == .ask(text: "Hello, this is the AI assistant of Seoul Clinic, calling about your appointment. How can I help you?", questionIndex: -1))
        #expect(d.wantsLookup("opening hours"), "on a FAQ line anything but goodbye is looked up")
        #expect(d.caller(asked: "opening hours", answer: Self.hours) == .ask(text: "We are open 9 to 6. Is there anything else I can help you with?", questionIndex: -1))
        #expect(!d.wantsLookup("No, that's all, thank you."))
        #expect(!d.wantsLookup("아니요, 없어요."))
        #expect(d.caller(said: "No, that's all, thank you.") == .close(text: "Thank you for your time. Have a nice day."))
    }

    @Test func withoutCollectionsNothingIsLookedUp() {
        var d = ScriptedDialogue(context: ConversationContext(purpose: "p", questions: ["Can you attend?"]))
        _ = d.start()
        #expect(!d.wantsLookup("What time do you open?"))
    }

    @Test func theFAQAnswerNeedsEnoughOfTheQuestionsWords() {
        var weak = Self.hours
        weak.coverage = 0.3
        var notFAQ = Self.hours
        notFAQ.chunk.isFAQ = false
        #expect(KnowledgeAnswerPolicy.standard.answer(from: [Self.hours]) == Self.hours)
        #expect(KnowledgeAnswerPolicy.standard.answer(from: [weak]) == nil)
        #expect(KnowledgeAnswerPolicy.standard.answer(from: [notFAQ, Self.hours]) == Self.hours, "the local engine reads out FAQ answers only")
        var near = Self.hours, far = Self.hours
        near.similarity = 0.93
        far.similarity = 0.84
        far.coverage = 1
        #expect(KnowledgeAnswerPolicy.standard.answer(from: [near]) == near)
        #expect(KnowledgeAnswerPolicy.standard.answer(from: [far]) == nil, "with embeddings, their similarity decides")
        // A row in Korean needs more: its similarities run higher (calibrated apart on the knowledge bench).
        let policy = KnowledgeAnswerPolicy.standard
        var between = Self.hours, korean = Self.hours
        between.similarity = (policy.similarityThreshold + policy.koreanSimilarityThreshold) / 2
        korean.chunk = KnowledgeChunk(title: "진료 시간은 어떻게 되나요?", text: "평일 오전 9시부터 오후 6시까지입니다.", line: 2, isFAQ: true)
        korean.similarity = between.similarity
        #expect(policy.koreanSimilarityThreshold > policy.similarityThreshold)
        #expect(policy.answer(from: [between]) == between)
        #expect(policy.answer(from: [korean]) == nil)
    }
}
