import Calls

/// Korean personas (`language: ko`), the same situations as the English catalogue: yes and no,
/// names, numbers to dial, days and times, counts, an amount, a refusal, an unclear answer, a
/// question back, call-me-later and silence — tuning personas, like the English catalogue. The simulated callee says them in espeak-ng's Korean
/// voice; `make bench`'s `korean` suite places them as real calls.
extension CalleePersona {
    public static let koreanMeeting = ["내일 회의에 참석하실 수 있나요?", "장소를 바꿔야 할까요?"]
    public static let koreanVisit = ["성함이 어떻게 되세요?", "연락처가 어떻게 되세요?", "언제 방문하면 좋을까요?"]
    public static let koreanParty = ["몇 분이 오시나요?", "주차가 필요하신가요?"]
    public static let koreanBudget = ["한 달 예산이 얼마인가요?", "상담 전화를 원하시나요?"]

    public static let korean: [CalleePersona] = [
        .init("네, 예", koreanMeeting, ["네.", "예."], [(.answered, "yes"), (.answered, "yes")]),
        .init("참석, 장소 그대로", koreanMeeting, ["네, 참석할게요.", "아니요, 기존 장소로 괜찮습니다."], [(.answered, "yes"), (.answered, "no")]),
        .init("아뇨", koreanMeeting, ["아뇨, 못 가요.", "아니요."], [(.answered, "no"), (.answered, "no")]),
        .init("인원과 주차", koreanParty, ["세 명이요.", "네, 필요해요."], [(.answered, "3"), (.answered, "yes")]),
        .init("이름, 번호, 내일", koreanVisit, ["김민수입니다.", "공일공 일이삼사 오육칠팔이에요.", "내일 오후 두 시요."],
              [(.answered, "김민수"), (.answered, "+821012345678"), (.answered, "{today+1}T14:00")]),
        .init("다음 주 월요일", koreanVisit, ["이지은이에요.", "공일공 구팔칠육 오사삼이요.", "다음 주 월요일이요."],
              [(.answered, "이지은"), (.answered, "+821098765432"), (.answered, "{next monday}")]),
        .init("오만 원", koreanBudget, ["오만 원이요.", "네, 좋아요."], [(.answered, "50000 KRW"), (.answered, "yes")]),
        .init("답변 거부", koreanMeeting, ["말씀드리기 어려워요.", "아니요."], [(.refused, nil), (.answered, "no")]),
        .init("글쎄요", koreanMeeting, ["<vague> 글쎄요.", "예, 갈게요.", "아니요."], [(.answered, "yes"), (.answered, "no")]),
        .init("누구세요", koreanMeeting, ["<vague> 누구세요?", "네.", "아니요."], [(.answered, "yes"), (.answered, "no")]),
        .init("나중에 전화", koreanMeeting, ["지금 운전 중이에요, 나중에 다시 전화주세요."], [(.pending, nil), (.notAsked, nil)]),
        .init("말이 없음", koreanMeeting, ["<silence>", "<silence>"], [(.pending, nil), (.notAsked, nil)]),
    ]
}
