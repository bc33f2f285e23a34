import Testing
@testable import Dialogue

/// The screener's words told from a person's (the phrases' tuning set: `make bench`'s `screeners`
/// suite reports on other wordings), and the dialogue behind a screener: who is calling and why,
/// silence while it holds, the opening again for the person, `screened_out` when it turns the call away.
@Suite struct CallScreenerTests {
    static let context = ConversationContext(purpose: "confirm tomorrow's 2 pm meeting", questions: ["Can you attend?", "Does the place need to change?"],
                                             displayName: "ABC Company")
    static let opening = ScriptedDialogue.Step.ask(text: "Hello, this is the AI assistant of ABC Company, calling about confirm tomorrow's 2 pm meeting. Can you attend?", questionIndex: 0)
    static let introduction = ScriptedDialogue.Step.listen(text: "This is the AI assistant of ABC Company, calling about confirm tomorrow's 2 pm meeting.")

    @Test(arguments: [
        "Hi, the person you're calling is using a screening service and will get a copy of this conversation. Go ahead and say your name and why you're calling.",
        "Hello, if you record your name and reason for calling, I'll see if this person is available.",
        "This is an automated assistant. Who is calling, please?",
        "The person you are trying to reach has call screening on. Please state your name and the purpose of your call.",
        "안녕하세요, 통화 비서입니다. 성함과 용건을 말씀해 주시면 전달해 드릴게요.",
    ])
    func promptsAreHeard(_ text: String) {
        #expect(CallScreener.heard(text) == .prompt)
    }

    @Test(arguments: [
        ("Thanks, please stay on the line while I see if they're available.", CallScreener.Heard.holding),
        ("Okay, one moment.", .holding),
        ("Thank you.", .holding),
        ("잠시만 기다려 주세요.", .holding),
        ("Sorry, the person you're calling can't take your call right now.", .turnedAway),
        ("They're not available at the moment.", .turnedAway),
        ("죄송합니다. 지금은 전화를 받을 수 없다고 하십니다.", .turnedAway),
        ("Hi, the person you're calling is using a screening service from their phone.", .announcement),
    ])
    func theScreenersOtherWordsAreHeard(_ text: String, _ heard: CallScreener.Heard) {
        #expect(CallScreener.heard(text) == heard, "\(text)")
    }

    @Test(arguments: [
        "Hello?", "Hi, this is Dana speaking.", "Who's calling?", "Who is this and what's this about?", "Yes, I can attend.",
        "Hi, you've reached Sam. Please leave your name and number after the tone.", "여보세요?", "네, 김민수입니다.", "누구세요?",
    ])
    func aPersonsOrAMachinesWordsAreNot(_ text: String) {
        #expect(CallScreener.heard(text) == nil, "\(text)")
    }

    @Test func theAgentSaysWhoAndWhyWaitsAndGreetsThePerson() {
        var d = ScriptedDialogue(context: Self.context)
        #expect(d.start() == Self.opening)
        #expect(d.caller(said: "Hi, the person you're calling is using a screening service. Say your name and why you're calling.") == Self.introduction)
        #expect(d.tracker.screener == .waiting)
        #expect(d.caller(said: "Thanks, please stay on the line.") == .listen(text: ""))
        #expect(d.noReply() == .listen(text: ""), "a while on hold is no reason to speak")
        #expect(d.caller(said: "Hello? This is Dana.") == Self.opening)
        #expect(d.tracker.screener == .personReached)
        #expect(d.caller(said: "Yes, I can attend.") == .ask(text: "Thank you. Does the place need to change?", questionIndex: 1))
        #expect(d.tracker.answers[0].status == .answered && d.tracker.answers[0].timesAsked == 1, "the screener's hearing of it was not an asking")
        #expect(d.caller(said: "Please hold.") != .listen(text: ""), "past the screener, the person's words are read as usual")
    }

    @Test func wordsThatAreNeitherTheScreenersNorAGreetingKeepTheAgentWaiting() {
        var d = ScriptedDialogue(context: Self.context)
        _ = d.start()
        _ = d.caller(said: "This is an automated assistant. Who is calling, please?")
        #expect(d.caller(said: "I'm afraid that won't be possible today.") == .listen(text: ""))
        #expect(d.tracker.screener == .waiting)
        #expect(d.caller(said: "Hey, sorry, I'm here.") == Self.opening)
        #expect(d.tracker.screener == .personReached)
    }

    /// A person misheard ("The law lived in pain." for "Hello, this is Dana.") waits for a reply: the
    /// silence after unplaced words is the person's, and gets the opening.
    @Test func unplacedWordsFollowedBySilenceAreThePersons() {
        var d = ScriptedDialogue(context: Self.context)
        _ = d.start()
        _ = d.caller(said: "This is an automated assistant. Who is calling, please?")
        #expect(d.caller(said: "The law lived in pain.") == .listen(text: ""))
        #expect(d.noReply() == Self.opening)
        #expect(d.tracker.screener == .personReached)
    }

    @Test func aScreenerThatTurnsTheCallAwayEndsItScreenedOut() {
        var d = ScriptedDialogue(context: Self.context)
        _ = d.start()
        _ = d.caller(said: "This is an automated assistant. Who is calling, please?")
        #expect(d.caller(said: "Sorry, they can't take your call right now.") == .close(text: "Thank you for your time. Have a nice day."))
        #expect(d.tracker.screener == .screenedOut)
        #expect(d.tracker.finalAnswers.allSatisfy { $0.status == .pending || $0.status == .notAsked })
    }

    @Test func aWaitThatRunsOutEndsItScreenedOut() {
        var d = ScriptedDialogue(context: Self.context)
        _ = d.start()
        _ = d.caller(said: "The person you are trying to reach has call screening on. Please state your name and the purpose of your call.")
        for _ in 1..<ScriptedDialogue.screenerSilencesMax { #expect(d.noReply() == .listen(text: "")) }
        #expect(d.noReply() == .close(text: "Thank you for your time. Have a nice day."))
        #expect(d.tracker.screener == .screenedOut)
    }

    @Test func aScreenerThatOnlyNamesItselfIsAnsweredWhenItFallsSilent() {
        var d = ScriptedDialogue(context: Self.context)
        _ = d.start()
        #expect(d.caller(said: "Hi, the person you're calling is using a screening service from their phone.") == .listen(text: ""))
        #expect(d.noReply() == Self.introduction)
    }

    @Test func aScreenerAskingAgainIsAnsweredOnceMore() {
        var d = ScriptedDialogue(context: Self.context)
        _ = d.start()
        let prompt = "Hello, if you record your name and reason for calling, I'll see if this person is available."
        #expect(d.caller(said: prompt) == Self.introduction)
        #expect(d.caller(said: prompt) == Self.introduction)
        #expect(d.caller(said: prompt) == .listen(text: ""), "not a third time: it would loop")
    }

    @Test func aPersonAskingWhoIsCallingIsAnsweredAndAskedAsBefore() {
        var d = ScriptedDialogue(context: Self.context)
        _ = d.start()
        #expect(d.caller(said: "Who's calling?") == .ask(text: "This is the AI assistant of ABC Company, calling about confirm tomorrow's 2 pm meeting. Can you attend?", questionIndex: 0))
        #expect(d.tracker.screener == nil)
    }

    @Test func anInboundCallerIsNeverTakenForAScreener() {
        var context = Self.context
        context.call.direction = "inbound"
        var d = ScriptedDialogue(context: context)
        _ = d.start()
        #expect(d.caller(said: "This is an automated assistant. Who is calling, please?") != Self.introduction)
        #expect(d.tracker.screener == nil)
    }

    @Test func aKoreanScreenerGetsTheKoreanIntroduction() {
        var context = Self.context
        context.language = "ko"
        context.purpose = "내일 오후 두 시 회의 확인"
        context.questions = ["참석 가능하세요?"]
        var d = ScriptedDialogue(context: context)
        _ = d.start()
        #expect(d.caller(said: "안녕하세요, 통화 비서입니다. 성함과 용건을 말씀해 주시면 전달해 드릴게요.")
                == .listen(text: "저는 ABC Company의 AI 상담원이고, 내일 오후 두 시 회의 확인 관련해서 전화드렸습니다."))
        #expect(d.caller(said: "잠시만 기다려 주세요.") == .listen(text: ""))
        #expect(d.caller(said: "죄송합니다. 지금은 전화를 받을 수 없다고 하십니다.") == .close(text: context.closing))
        #expect(d.tracker.screener == .screenedOut)
    }

    @Test func theSummarySaysAScreenerAnswered() {
        var tracker = TaskTracker(questions: ["Can you attend?"])
        tracker.screener = .screenedOut
        let result = ConversationResult(tracker: tracker, transcript: [], durationSeconds: 20, context: Self.context)
        #expect(result.summary.hasSuffix("A call screener answered; the person did not come on the line."), "\(result.summary)")
    }
}
