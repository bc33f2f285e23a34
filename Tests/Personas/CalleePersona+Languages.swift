import Calls

/// A call whose callee may switch language (`make bench`'s `languages` suite): the persona in the
/// call's own language, the other language the template lists, and the questions in it.
public struct SwitchingLanguageCall: Sendable {
    public var persona: CalleePersona
    public var language: String
    public var other: String
    public var translation: [String]
}

/// Held-out callers who answer in the call's other language: Korean calls answered in English
/// (Piper's voice), some after a first word in Korean, and English calls answered in Korean
/// (espeak-ng's Korean voice). Written for this suite; nothing was tuned on them — the switch's
/// thresholds were set on `WhisperLanguageTests`' own lines.
extension CalleePersona {
    static let koreanDinner = (["저녁 모임에 오실 수 있나요?", "몇 분이 함께 오시나요?"], ["Can you come to the dinner?", "How many of you are coming?"])
    static let koreanContact = (["다시 연락드릴 번호가 어떻게 되세요?", "언제 전화드리면 좋을까요?"], ["What number should we call you back on?", "When should we call you?"])
    static let koreanSurvey = (["저희 서비스에 만족하셨나요?", "다른 분께 추천하시겠어요?"], ["Were you happy with our service?", "Would you recommend us to others?"])
    static let englishClass = (["Will you join the cooking class on Saturday?", "How many seats should we keep?"], ["토요일 요리 수업에 오시나요?", "몇 자리를 잡아 드릴까요?"])
    static let englishRepair = (["Can the technician come on Wednesday?", "Is someone home in the morning?"], ["수요일에 기사님이 방문해도 될까요?", "오전에 집에 계신 분이 있나요?"])

    /// `persona`, asked the first of `questions` in `language`, the second its translation.
    static func switching(_ questions: ([String], [String]), language: String, _ persona: ([String]) -> CalleePersona) -> SwitchingLanguageCall {
        SwitchingLanguageCall(persona: persona(questions.0), language: language, other: language == "ko" ? "en" : "ko", translation: questions.1)
    }

    public static let switchingLanguage: [SwitchingLanguageCall] = [
        switching(koreanDinner, language: "ko") { .init("dinner, English at once", $0, ["Sorry, English please. Yes, I can come.", "Two of us."],
                  [(.answered, "yes"), (.answered, "2")]) },
        switching(koreanDinner, language: "ko") { .init("dinner, cannot come", $0, ["I'm afraid I can't make it.", "My wife might come, so one."], [(.answered, "no"), (.answered, "1")]) },
        switching(koreanDinner, language: "ko") { .init("dinner, Korean then English", $0, ["네.", "Actually, could we speak English? Five of us."],
                  [(.answered, "yes"), (.answered, "5")]) },
        switching(koreanDinner, language: "ko") { .init("dinner, a big group", $0, ["Yes, we'll be there.", "Seven people."], [(.answered, "yes"), (.answered, "7")]) },
        switching(koreanContact, language: "ko") { .init("contact, a number", $0, ["Zero one zero, two four six eight, one three five seven.", "Friday afternoon at three."],
                  [(.answered, "+821024681357"), (.answered, "{next friday}T15:00")]) },
        switching(koreanContact, language: "ko") { .init("contact, tomorrow", $0, ["You can call zero one zero, nine eight seven six, five four three two.", "Tomorrow at ten in the morning."],
                  [(.answered, "+821098765432"), (.answered, "{today+1}T10:00")]) },
        switching(koreanContact, language: "ko") { .init("contact, keeps it private", $0, ["I'd rather not give my number.", "Please don't call again."],
                  [(.refused, nil), (.refused, nil)]) },
        switching(koreanSurvey, language: "ko") { .init("survey, happy", $0, ["Yes, very happy.", "Sure, I would."], [(.answered, "yes"), (.answered, "yes")]) },
        switching(koreanSurvey, language: "ko") { .init("survey, not happy", $0, ["No, not really.", "No, I wouldn't."], [(.answered, "no"), (.answered, "no")]) },
        switching(koreanSurvey, language: "ko") { .init("survey, Korean then English", $0, ["아니요.", "Sorry, my Korean is not good. No, I would not."],
                  [(.answered, "no"), (.answered, "no")]) },
        switching(koreanSurvey, language: "ko") { .init("survey, busy", $0, ["I'm driving right now, call me back later."], [(.pending, nil), (.notAsked, nil)]) },
        switching(koreanDinner, language: "ko") { .init("dinner, asks who it is", $0, ["<vague> Who is calling, please?", "Yes, I can.", "Three of us."],
                  [(.answered, "yes"), (.answered, "3")]) },
        switching(englishClass, language: "en") { .init("class, Korean yes", $0, ["네, 갈게요.", "두 자리요."], [(.answered, "yes"), (.answered, "2")]) },
        switching(englishClass, language: "en") { .init("class, Korean no", $0, ["아니요, 못 가요.", "한 자리요."], [(.answered, "no"), (.answered, "1")]) },
        switching(englishClass, language: "en") { .init("class, English then Korean", $0, ["Yes, I'll come.", "세 자리 부탁드려요."], [(.answered, "yes"), (.answered, "3")]) },
        switching(englishClass, language: "en") { .init("class, four seats", $0, ["네, 참석할게요.", "네 자리요."], [(.answered, "yes"), (.answered, "4")]) },
        switching(englishRepair, language: "en") { .init("repair, Korean yes", $0, ["네, 수요일 괜찮아요.", "네, 있어요."], [(.answered, "yes"), (.answered, "yes")]) },
        switching(englishRepair, language: "en") { .init("repair, Korean no", $0, ["아니요, 수요일은 안 돼요.", "아니요, 없어요."], [(.answered, "no"), (.answered, "no")]) },
        switching(englishRepair, language: "en") { .init("repair, English then Korean", $0, ["No, Wednesday is bad.", "네, 있어요."], [(.answered, "no"), (.answered, "yes")]) },
        switching(englishRepair, language: "en") { .init("repair, Korean busy", $0, ["지금 운전 중이라 나중에 다시 전화 주세요."], [(.pending, nil), (.notAsked, nil)]) },
    ]
}
