import Testing
@testable import Dialogue

/// Phone menus read from a recognizer's words, and the option chosen toward the call's purpose
/// (the tuning set: `make bench`'s menus are worded otherwise).
@Suite struct PhoneMenuTests {
    @Test func keysAfterTheirWordsAndBefore() throws {
        let menu = try #require(PhoneMenu("Thank you for calling. For billing, press 1. For deliveries, press two. To speak to an operator, press 0."))
        #expect(menu.options.map(\.key) == ["1", "2", "0"])
        #expect(menu.options.map(\.words) == ["billing", "deliveries", "speak to an operator"])
        let other = try #require(PhoneMenu("Press 1 for new appointments. Press 2 to cancel an appointment. Press star to hear these options again."))
        #expect(other.options.map(\.key) == ["1", "2", "*"])
        #expect(other.options[1].words == "cancel an appointment")
    }

    @Test func aClauseNamingTheOptionBeforeItsKey() throws {
        let menu = try #require(PhoneMenu("If you are calling about an order, press 3."))
        #expect(menu.options == [.init(key: "3", words: "you are calling about an order")])
    }

    /// Moonshine wrote a menu without a stop or a comma, keys as digits.
    @Test func aMenuWrittenWithoutPunctuation() throws {
        let menu = try #require(PhoneMenu("Thank you for calling for billing press 1 for delivery press 2 to speak to an operator press 0"))
        #expect(menu.options.map(\.key) == ["1", "2", "0"])
        #expect(menu.options.map(\.words) == ["billing", "delivery", "speak to an operator"])
        let after = try #require(PhoneMenu("Thank you for calling press 1 for billing press 2 for deliveries"))
        #expect(after.options.map(\.words) == ["billing", "deliveries"])
        let bare = try #require(PhoneMenu("Billing, press 1. Deliveries, press 2."))
        #expect(bare.options.map(\.words) == ["billing", "deliveries"])
    }

    /// A last key written as the word it sounds like: a key only at the very end.
    @Test func aLastKeyWrittenAsItsSoundAlike() throws {
        let menu = try #require(PhoneMenu("To pay a bill press one. To report a fault press to."))
        #expect(menu.options.map(\.key) == ["1", "2"] && menu.options[1].words == "report a fault")
        let four = try #require(PhoneMenu("For sales press 3, for repairs press for"))
        #expect(four.options.map(\.key) == ["3", "4"])
        #expect(PhoneMenu("Please press to continue to the next step.") == nil, "not at the end: no key")
    }

    @Test func koreanMenus() throws {
        let menu = try #require(PhoneMenu("배송 문의는 2번, 예약 변경은 3번, 상담원 연결은 0번을 눌러 주세요."))
        #expect(menu.options.map(\.key) == ["2", "3", "0"])
        #expect(menu.options.map(\.words) == ["배송 문의", "예약 변경", "상담원 연결"], "without the topic particle")
        let unpunctuated = try #require(PhoneMenu("서울은행입니다 잔액 조회는 1번 분실 신고는 2번을 눌러 주세요"))
        #expect(unpunctuated.options.map(\.words).first == "잔액 조회", "the welcome is no part of the first option: \(unpunctuated.options)")
        let spoken = try #require(PhoneMenu("예약은 일번, 결제는 이번을 누르세요."))
        #expect(spoken.options.map(\.key) == ["1", "2"])
    }

    @Test func wordsWithoutKeysAreNoMenu() {
        #expect(PhoneMenu("Hello, this is Dana speaking.") == nil)
        #expect(PhoneMenu("Please hold.") == nil)
        #expect(PhoneMenu("여보세요?") == nil)
    }

    /// A menu that asks for speech: its choices after "say", split at commas and "or", each said
    /// rather than pressed; a key offered beside them is pressed instead; a person's "say" is no menu.
    @Test func aMenuThatAsksForSpeech() throws {
        let spoken = try #require(PhoneMenu("Thanks for calling. Please say billing, deliveries, or operator."))
        #expect(spoken.options == [.init(key: nil, words: "billing"), .init(key: nil, words: "deliveries"), .init(key: nil, words: "operator")])
        let described = try #require(PhoneMenu("You can say things like agent to talk to someone, or check an order."))
        #expect(described.options.map(\.words) == ["agent", "check an order"])
        #expect(described.choice(toward: "the survey about our new park")?.words == "agent", "a person's, said")
        #expect(PhoneMenu("For sales, say sales. For repairs, say repairs.")?.options.map(\.words) == ["sales", "repairs"])
        #expect(PhoneMenu("thanks for calling please say sales repairs or accounts")?.options.map(\.words) == ["sales", "repairs", "accounts"],
                "written without commas")
        #expect(PhoneMenu("please say check my order or talk to an agent")?.options.map(\.words) == ["check my order", "talk to an agent"])
        #expect(PhoneMenu("Say the department you want: repairs, or sales.")?.options.map(\.words) == ["repairs", "sales"])
        let keys = try #require(PhoneMenu("For billing, say billing or press 1. For deliveries, press 2."))
        #expect(keys.options.map(\.key) == ["1", "2"])
        #expect(PhoneMenu("Could you say that again?") == nil)
        #expect(PhoneMenu("I'd say yes, but ask my wife.") == nil)
        #expect(PhoneMenu("Sorry, please say that again, I couldn't hear you.") == nil)
    }

    @Test func theDialogueSaysASpokenChoice() {
        let context = ConversationContext(purpose: "your parcel delivery", questions: ["Can we deliver on Friday?"], displayName: "ABC Company")
        var d = ScriptedDialogue(context: context)
        let opening = d.start()
        #expect(d.caller(said: "Please say billing, deliveries, or operator.") == .listen(text: "Deliveries."))
        #expect(d.caller(said: "Hello, this is Jo.") == opening)
        #expect(d.tracker.menu?.path == "\"deliveries\"")
        _ = d.caller(said: "Yes.")
        let result = ConversationResult(tracker: d.tracker, transcript: [], durationSeconds: 20, context: context)
        #expect(result.summary.contains("Phone menu: chose \"deliveries\"."), "\(result.summary)")
    }

    @Test func theOptionTowardThePurposeIsChosen() throws {
        let menu = try #require(PhoneMenu("For billing, press 1. For deliveries, press 2. To speak to an operator, press 0."))
        #expect(menu.choice(toward: "reschedule your delivery. When should we deliver?")?.key == "2")
        #expect(menu.choice(toward: "a question about your bill")?.key == "1")
        #expect(menu.choice(toward: "the survey about our new park")?.key == "0", "nothing matches: a person")
        let noPerson = try #require(PhoneMenu("For billing, press 1. For deliveries, press 2."))
        #expect(noPerson.choice(toward: "the survey about our new park") == nil)
        let korean = try #require(PhoneMenu("배송 문의는 2번, 예약 변경은 3번, 상담원 연결은 0번을 눌러 주세요."))
        #expect(korean.choice(toward: "내일 예약 확인")?.key == "3")
        #expect(korean.choice(toward: "설문 조사")?.key == "0")
    }

    /// The dialogue behind a menu: silent while it plays, the key toward the purpose, the person's
    /// opening; a menu after the business's name said on its own is still a menu.
    @Test func theDialoguePressesAndGreetsThePerson() {
        let context = ConversationContext(purpose: "your parcel delivery", questions: ["Can we deliver on Friday?"], displayName: "ABC Company")
        var d = ScriptedDialogue(context: context)
        let opening = d.start()
        #expect(d.caller(said: "Safe Home Deliveries.") != .press(keys: "2"))
        #expect(d.caller(said: "For billing press 1. For deliveries press 2.") == .press(keys: "2"))
        #expect(d.caller(said: "Please hold.") == .listen(text: ""))
        #expect(d.caller(said: "Hello, this is Jo.") == opening)
        #expect(d.tracker.menu?.state == .personReached && d.tracker.menu?.path == "2 (deliveries)")
        #expect(d.caller(said: "Yes, Friday is fine.") == .close(text: context.closing))
        #expect(d.tracker.answers[0].status == .answered)
    }

    @Test func aMenuWithNoWayThereEndsWithNoRoute() {
        let context = ConversationContext(purpose: "the survey about the park", questions: ["Do you visit the park?"])
        var d = ScriptedDialogue(context: context)
        _ = d.start()
        #expect(d.caller(said: "For billing press 1. For deliveries press 2.") == .listen(text: ""))
        #expect(d.caller(said: "For billing press 1. For deliveries press 2.") == .close(text: context.closing), "said again: no way there")
        #expect(d.tracker.menu?.state == .noRoute && d.endReason == "ivr_no_route")
    }

    @Test func aPersonsOptionIsPressedOnceTheMenuIsWhole() {
        let context = ConversationContext(purpose: "the survey about the park", questions: ["Do you visit the park?"])
        var d = ScriptedDialogue(context: context)
        _ = d.start()
        #expect(d.caller(said: "For billing press 1. To speak to an operator press 0.") == .listen(text: ""))
        #expect(d.noReply() == .press(keys: "0"))
    }

    /// Words that are no greeting, then a silence: the person, misheard. Hold words between them
    /// mean the line is still holding.
    @Test func aSilenceAfterUnplacedWordsIsThePersonButNotAfterHoldWords() {
        let context = ConversationContext(purpose: "your parcel delivery", questions: ["Can we deliver on Friday?"])
        var d = ScriptedDialogue(context: context)
        let opening = d.start()
        #expect(d.caller(said: "For billing press 1. For deliveries press 2.") == .press(keys: "2"))
        #expect(d.caller(said: "The law lived in pain.") == .listen(text: ""))
        #expect(d.caller(said: "Please hold.") == .listen(text: ""))
        #expect(d.noReply() == .listen(text: ""), "holding, not the person")
        #expect(d.caller(said: "The law lived in pain.") == .listen(text: ""))
        #expect(d.noReply() == opening)
        #expect(d.tracker.menu?.state == .personReached)
    }

    /// A known path (`menu_path`): the session presses its keys, so the dialogue says nothing —
    /// no greeting into the menu, no key of its own — and gives the person the opening, its
    /// question counted once.
    @Test func behindAKnownPathTheDialogueWaitsSilentlyForThePerson() {
        var context = ConversationContext(purpose: "your parcel delivery", questions: ["Can we deliver on Friday?"])
        context.menuPath = [.init(keys: "2", waitSeconds: 3), .init(keys: "1", waitSeconds: 2)]
        var d = ScriptedDialogue(context: context)
        #expect(d.start() == .listen(text: ""))
        #expect(d.tracker.answers[0].timesAsked == 0, "nothing asked before the person")
        #expect(d.caller(said: "For billing press 1. For deliveries press 2.") == .listen(text: ""), "the path presses, not the dialogue")
        #expect(d.caller(said: "Please hold.") == .listen(text: ""))
        guard case .ask(let text, 0) = d.caller(said: "Hello, this is Jo.") else { Issue.record("no opening for the person"); return }
        #expect(text.contains("Can we deliver on Friday?"))
        #expect(d.tracker.answers[0].timesAsked == 1)
        #expect(d.tracker.menu?.state == .personReached && d.tracker.menu?.path == "2, then 1")
        #expect(d.caller(said: "Yes, Friday is fine.") == .close(text: context.closing))
        #expect(d.tracker.answers[0].status == .answered)
    }

    /// Nobody behind the known path: the question was never put (`not_asked`), and the wait — a
    /// hold's, its keys being pressed — ends `ivr_timeout`.
    @Test func aKnownPathThatReachesNobodyTimesOutWithNothingAsked() {
        var context = ConversationContext(purpose: "your parcel delivery", questions: ["Can we deliver on Friday?"])
        context.menuPath = [.init(keys: "0", waitSeconds: 1)]
        var d = ScriptedDialogue(context: context)
        _ = d.start()
        var steps: [ScriptedDialogue.Step] = []
        for _ in 0..<ScriptedDialogue.holdSilencesMax { steps.append(d.noReply()) }
        #expect(steps.dropLast().allSatisfy { $0 == .listen(text: "") } && steps.last == .close(text: context.closing), "\(steps)")
        #expect(d.endReason == "ivr_timeout" && d.tracker.answers[0].timesAsked == 0)
    }

    /// An inbound call never follows a path: the greeting is said at once.
    @Test func anInboundCallIgnoresThePath() {
        var context = ConversationContext(purpose: "your parcel delivery", questions: ["Can we deliver on Friday?"])
        context.menuPath = [.init(keys: "2", waitSeconds: 1)]
        context.call.direction = "inbound"
        var d = ScriptedDialogue(context: context)
        #expect(d.start() != .listen(text: ""))
        #expect(d.tracker.menu == nil)
    }

    @Test func aPathsStepsAreBounded() {
        #expect(MenuPathStep.problem(in: [.init(keys: "2", waitSeconds: 4), .init(keys: "1#", waitSeconds: 0)]) == nil)
        #expect(MenuPathStep.problem(in: []) != nil)
        #expect(MenuPathStep.problem(in: [.init(keys: "2a", waitSeconds: 1)])?.hasPrefix("step 1: keys") == true)
        #expect(MenuPathStep.problem(in: [.init(keys: "2", waitSeconds: 1), .init(keys: "1", waitSeconds: 500)])?.hasPrefix("step 2: wait_seconds") == true)
        #expect(MenuPathStep.problem(in: [.init(keys: "1", waitSeconds: .nan)]) != nil)
        #expect(MenuPathStep.problem(in: Array(repeating: .init(keys: "1", waitSeconds: 1), count: 11)) != nil)
    }

    /// Closeness in meaning (given here; `PhoneMenuMeaningTests` has the model's): it settles a tie
    /// of shared words, and with no word shared presses only an option close enough and clearly
    /// closer than the rest — else a person's option, or none.
    @Test func meaningSettlesTiesAndPressesOnlyAClearlyCloseOption() throws {
        let tie = try #require(PhoneMenu("To place a new order press 1. To track an order you placed press 2."))
        let goal = "your order's delivery date. Can the order arrive on Friday?"
        #expect(tie.choice(toward: goal)?.key == "1", "by words alone: the first of the tie")
        #expect(tie.choice(toward: goal, meaning: ["place a new order": 0.83, "track an order you placed": 0.86])?.key == "2")
        let apart = try #require(PhoneMenu("For billing press 1. For shipments press 2. To speak to an operator press 0."))
        let parcel = "your parcel. Can we bring it on Friday?"
        #expect(apart.choice(toward: parcel, meaning: ["billing": 0.80, "shipments": 0.86, "speak to an operator": 0.78])?.key == "2")
        #expect(apart.choice(toward: parcel, meaning: ["billing": 0.81, "shipments": 0.82, "speak to an operator": 0.78])?.key == "0", "not close enough: a person")
        #expect(apart.choice(toward: parcel, meaning: ["billing": 0.85, "shipments": 0.86, "speak to an operator": 0.78])?.key == "0", "not clearly closer: a person")
        let noPerson = try #require(PhoneMenu("For billing press 1. For shipments press 2."))
        #expect(noPerson.choice(toward: parcel, meaning: ["billing": 0.81, "shipments": 0.82]) == nil)
    }

    /// The options the engine is asked to weigh: a menu's, once each, and none behind a known path.
    @Test func theDialogueAsksForEachOptionsMeaningOnce() {
        let context = ConversationContext(purpose: "your parcel delivery", questions: ["Can we deliver on Friday?"])
        var d = ScriptedDialogue(context: context)
        _ = d.start()
        let menu = "For billing press 1. For shipments press 2."
        #expect(d.menuOptionsToWeigh(menu) == ["billing", "shipments"])
        d.noteMenuMeaning([("billing", 0.80), ("shipments", 0.86)])
        #expect(d.menuOptionsToWeigh(menu).isEmpty)
        #expect(d.menuOptionsToWeigh("Hello, this is Jo.").isEmpty)
        #expect(d.caller(said: menu) == .press(keys: "2"))
        var known = context
        known.menuPath = [.init(keys: "2", waitSeconds: 1)]
        var k = ScriptedDialogue(context: known)
        _ = k.start()
        #expect(k.menuOptionsToWeigh(menu).isEmpty)
    }

    /// A menu's refusal is the system talking: nothing is stored from it, in either language.
    @Test func aMenusRefusalIsNobodysAnswer() {
        for (language, question, refusal) in [("en", "Can we deliver on Friday?", "I'm sorry, that is not a valid entry. Goodbye."),
                                              ("ko", "토요일에 받으실 수 있나요?", "번호를 잘못 누르셨습니다. 안녕히 계세요.")] {
            let context = ConversationContext(purpose: "delivery", questions: [question], language: language)
            var d = ScriptedDialogue(context: context)
            _ = d.start()
            #expect(d.caller(said: refusal) == .listen(text: ""))
            d.callerHungUp(having: refusal)
            #expect(d.tracker.answers[0].status != .answered && d.tracker.answers[0].answerText == nil, "\(d.tracker.answers[0])")
        }
        #expect(!PhoneMenu.refusesEntry("No, Friday is not good for me.") && !PhoneMenu.refusesEntry("No, I didn't receive the invalid card."))
    }
}
