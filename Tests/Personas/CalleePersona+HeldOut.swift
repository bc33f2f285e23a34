import Calls

/// The held-out personas: written after the dialogue, the interpreter and the recognizers' biases
/// were tuned, and never tuned on. `make bench`'s `held-out` suite reports on them — statuses,
/// answers and the answers stored as answered that are wrong — and no test requires them to pass:
/// a figure on speech nothing was fitted to. Their questions are worded afresh, their numbers,
/// names, days and refusals are in no prompt, vocabulary or rule (`scripts/check-test-data.py`),
/// and no line is a tuning persona's (`CalleePersonaTests`). Tuning on them makes them tuning
/// personas: write new held-out ones.
extension CalleePersona {
    static let review = ["Can you join the budget review on Monday?", "How many people from your team will come?"]
    static let callback = ["What is the best number to call you back on?", "What day and time should we call?"]
    static let order = ["How many boxes would you like?", "What name should we put on the order?"]
    static let deposit = ["How much would you like to put down as a deposit?", "Can we send you a text to confirm?"]
    static let checkUp = ["Could you come in for a check-up next week?", "Is the phone number we have for you still right?"]

    public static let heldOut: [CalleePersona] = [
        .init("joins the review", review, ["Yes, I'll be there.", "Four of us."], [(.answered, "yes"), (.answered, "4")]),
        .init("cannot join", review, ["No, I can't make it.", "Just me, actually."], [(.answered, "no"), (.answered, "1")]),
        .init("a number and an afternoon", callback, ["You can reach me on four one five, five five five, zero one three two.", "Thursday at four in the afternoon."],
              [(.answered, "+14155550132"), (.answered, "{next thursday}T16:00")]),
        .init("a morning call", callback, ["Six one seven, five five five, zero four four nine.", "Tomorrow morning at eight."],
              [(.answered, "+16175550449"), (.answered, "{today+1}T08:00")]),
        .init("a date and half past", callback, ["Eight zero eight, five five five, seven seven one two.", "The twelfth of December at nine thirty."],
              [(.answered, "+18085557712"), (.answered, "{12-12}T09:30")]),
        .init("an order", order, ["Six boxes, please.", "Put it under Daniel Ortiz."], [(.answered, "6"), (.answered, "Daniel Ortiz")]),
        .init("an order after thinking", order, ["<vague> I haven't decided yet.", "Make it twelve.", "Priya Nair."],
              [(.answered, "12"), (.answered, "Priya Nair")]),
        .init("a deposit", deposit, ["One hundred and twenty dollars.", "Yes, text me."], [(.answered, "120 USD"), (.answered, "yes")]),
        .init("a deposit and no texts", deposit, ["Forty dollars should do.", "Please don't, I prefer email."], [(.answered, "40 USD"), (.answered, "no")]),
        .init("keeps the number private", callback, ["I don't want to give that out.", "I'd rather you didn't call at all."], [(.refused, nil), (.refused, nil)]),
        .init("asks which clinic", checkUp, ["<vague> Which clinic is this?", "Yes, I can come in.", "Yes, it is."], [(.answered, "yes"), (.answered, "yes")]),
        .init("not next week", checkUp, ["No, not next week.", "No, it changed last month."], [(.answered, "no"), (.answered, "no")]),
        .init("at work", callback, ["Can you ring me back later? I'm at work."], [(.pending, nil), (.notAsked, nil)]),
        .init("hangs up on the deposit", deposit, ["<hangup>"], [(.pending, nil), (.notAsked, nil)]),
        .init("goes quiet", order, ["Three boxes.", "<silence>"], [(.answered, "3"), (.pending, nil)]),
        .init("mumbles twice", checkUp, ["<vague> Hmm, depends on the day.", "<vague> We'll see.", "No, it's a new one."], [(.unclear, nil), (.answered, "no")]),
    ]

    static let koreanReview = ["월요일 예산 회의에 오실 수 있나요?", "팀에서 몇 분이 오시나요?"]
    static let koreanCallback = ["다시 연락드릴 번호가 어떻게 되세요?", "언제 전화드리면 될까요?"]
    static let koreanOrder = ["몇 개 주문하시겠어요?", "주문하시는 분 성함이 어떻게 되세요?"]

    /// Korean held-out personas (`language: ko`), said in espeak-ng's Korean voice.
    public static let koreanHeldOut: [CalleePersona] = [
        .init("회의 참석, 다섯 명", koreanReview, ["네, 갈 수 있어요.", "다섯 명이요."], [(.answered, "yes"), (.answered, "5")]),
        .init("불참", koreanReview, ["아니요, 어려울 것 같아요.", "저 혼자요."], [(.answered, "no"), (.answered, "1")]),
        .init("번호와 모레", koreanCallback, ["공일공, 사칠육삼, 이구공팔이요.", "모레 오전 열 시요."],
              [(.answered, "+821047632908"), (.answered, "{today+2}T10:00")]),
        .init("번호와 금요일", koreanCallback, ["공일공 팔팔이일 삼삼사오요.", "금요일 오후 네 시 반이요."],
              [(.answered, "+821088213345"), (.answered, "{next friday}T16:30")]),
        .init("주문", koreanOrder, ["여섯 개요.", "박서준입니다."], [(.answered, "6"), (.answered, "박서준")]),
        .init("고민 후 주문", koreanOrder, ["<vague> 음, 잘 모르겠어요.", "두 개 주세요.", "최유리예요."], [(.answered, "2"), (.answered, "최유리")]),
        .init("번호 거부", koreanCallback, ["번호는 알려드리기 곤란해요.", "전화 안 주셔도 돼요."], [(.refused, nil), (.refused, nil)]),
        .init("바쁨", koreanCallback, ["지금 바빠요, 이따가 다시 걸어주세요."], [(.pending, nil), (.notAsked, nil)]),
    ]
}
