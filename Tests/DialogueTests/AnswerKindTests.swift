import Testing
@testable import Dialogue

/// A question's kind from its grammar first: a yes/no question is one whatever nouns it carries;
/// a question that asks to be told something, or has a question word, asks for what its words name.
@Suite struct AnswerKindTests {
    @Test(arguments: [
        // Yes/no by their opening, though they name a budget, a day, a phone number, a name or a time.
        ("Can you join the budget review on Monday?", AnswerKind.yesNo), ("Is the phone number we have for you still right?", .yesNo),
        ("Will you bring your own laptop?", .yesNo), ("Should we keep the name on the booking?", .yesNo),
        ("Would a later time be better?", .yesNo), ("Does the price include delivery?", .yesNo),
        ("Are you still at the same address?", .yesNo), ("Have you paid the deposit already?", .yesNo),
        ("Do you need parking?", .yesNo), ("Could you come in for a check-up next week?", .yesNo),
        // Asking to be told: the words say what.
        ("May I have your name?", .name), ("Could you tell me your name, please?", .name), ("Can I get a number to call you back on?", .phoneNumber),
        ("Do you have a phone number we can reach you on?", .phoneNumber), ("Is there a good time to call?", .dateTime),
        ("Could you give me a date that works?", .dateTime), ("Can you tell me how many people are coming?", .number),
        ("Can you share your budget for this?", .number), ("Could you tell me what happened?", .freeText),
        // Question words.
        ("How much is your budget?", .number), ("How many rooms do you need?", .number), ("What is your phone number?", .phoneNumber),
        ("When would suit you?", .dateTime), ("What time works for you?", .dateTime), ("Who am I speaking with?", .name),
        ("Which colour do you prefer?", .freeText), ("Why did you cancel?", .freeText),
        // The question word over the nouns after it (informed by the second held-out set, 7 Dec;
        // these sentences are no persona's): a time to phone is a time, a person is a name.
        ("When should we ring your mobile?", .dateTime), ("When is the phone line installed?", .dateTime),
        ("Who is picking up the keys?", .name), ("Whom should we ask for at reception?", .name),
        ("How many phone lines do you need?", .number), ("How much time do you need?", .number),
        // A number to reach someone on, however it is put; a number of something else is told as said.
        ("Which number can we text the code to?", .phoneNumber), ("What number is easiest for contacting you?", .phoneNumber),
        ("What is your order number?", .freeText), ("What is your account number?", .freeText),
        ("What's the best time to visit?", .dateTime),
        // A sum of money by its name (informed by the sixth held-out set, 7 Dec: "What deposit …?"
        // stored its dollars as said); asked whether one is paid, it stays a yes/no.
        ("What fee did they quote you?", .number), ("What rent are you paying at the moment?", .number),
        ("What wage were you offered?", .number), ("Is the fee included?", .yesNo),
        ("Which plan would you like, basic or premium?", .freeText),
    ])
    func englishQuestions(question: String, kind: AnswerKind) {
        #expect(AnswerKind(question: question) == kind, "\(question)")
    }

    @Test(arguments: [
        // No question word: yes/no, whatever it names.
        ("월요일 예산 회의에 오실 수 있나요?", AnswerKind.yesNo), ("주차가 필요하신가요?", .yesNo), ("장소를 바꿔야 할까요?", .yesNo),
        ("등록된 전화번호가 맞으신가요?", .yesNo), ("성함으로 예약해 드릴까요?", .yesNo), ("가격이 괜찮으세요?", .yesNo),
        // A question word or a request: the words say what.
        ("성함이 어떻게 되세요?", .name), ("연락처가 어떻게 되세요?", .phoneNumber), ("연락처를 알려주시겠어요?", .phoneNumber),
        ("성함을 말씀해 주시겠어요?", .name), ("몇 분이 오시나요?", .number), ("한 달 예산이 얼마인가요?", .number),
        ("언제 방문하면 좋을까요?", .dateTime), ("몇 시가 편하세요?", .dateTime), ("어디로 보내 드릴까요?", .freeText),
    ])
    func koreanQuestions(question: String, kind: AnswerKind) {
        #expect(AnswerKind(question: question) == kind, "\(question)")
    }
}
