import Foundation
import Testing
@testable import Dialogue
@testable import Realtime

/// The local dialogue in Korean (`language: ko`): what each kind of question is, what the usual
/// Korean answers mean (as a person says them and as Whisper writes them), and a whole
/// conversation's lines in Korean.
@Suite struct KoreanDialogueTests {
    /// Thursday 26 November 2026, 10:00 in Seoul.
    static let calendar: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "Asia/Seoul")!
        return c
    }()
    static let now = calendar.date(from: DateComponents(year: 2026, month: 11, day: 26, hour: 10))!

    static func interpreter(_ questions: [String]) -> ReplyInterpreter {
        ReplyInterpreter(questions: questions, language: "ko", now: now, calendar: calendar)
    }

    static func answer(_ reply: String, to question: String) -> String? {
        guard case .answers(let found) = interpreter([question]).interpret(reply, asked: 0, open: [0]) else { return nil }
        return found[0]?.summary
    }

    @Test func questionsAreReadForWhatTheyAsk() {
        let kinds = ["내일 회의에 참석하실 수 있나요?", "성함이 어떻게 되세요?", "연락처가 어떻게 되세요?", "언제가 편하세요?",
                     "몇 분이 오시나요?", "어떤 메뉴를 원하세요?"].map(AnswerKind.init(question:))
        #expect(kinds == [.yesNo, .name, .phoneNumber, .dateTime, .number, .freeText])
    }

    /// A Korean call's ear is not prompted: Whisper says a prompt's words back on an unclear line.
    @Test func aKoreanQuestionPromptsNothing() {
        for question in ["참석하실 수 있나요?", "몇 분이 오시나요?", "연락처가 어떻게 되세요?", "언제가 편하세요?"] {
            let context = ConversationContext(purpose: "방문 예약", questions: [question], displayName: "ABC", language: "ko")
            var dialogue = ScriptedDialogue(context: context)
            _ = dialogue.start()
            #expect(dialogue.expectedWords.isEmpty, "\(question)")
        }
    }

    @Test(arguments: [("네", "yes"), ("예, 참석할게요.", "yes"), ("네네 갈게요", "yes"), ("괜찮아요", "yes"), ("아니요", "no"), ("아뇨, 못 가요.", "no"),
                      ("아니요, 기존 장소로 괜찮습니다.", "no"), ("안 될 것 같아요", "no")])
    func yesAndNo(reply: String, expected: String) {
        #expect(Self.answer(reply, to: "참석하실 수 있나요?") == expected, "\(reply)")
    }

    @Test func hedgesRefusalsAndRequestsAreTold() {
        let i = Self.interpreter(["참석하실 수 있나요?"])
        for hedge in ["글쎄요", "잘 모르겠어요", "음… 아마도요"] { #expect(i.interpret(hedge, asked: 0, open: [0]) == .unclear, "\(hedge)") }
        #expect(i.interpret("말씀드리기 어려워요", asked: 0, open: [0]) == .refused)
        #expect(i.interpret("누구세요?", asked: 0, open: [0]) == .whoIsCalling)
        #expect(i.interpret("지금 운전 중이라서요, 나중에 다시 전화주세요", asked: 0, open: [0]) == .callBackLater)
        #expect(i.interpret("상담원이랑 통화하고 싶어요", asked: 0, open: [0]) == .wantsPerson)
        #expect(i.interpret("음", asked: 0, open: [0]) == .unclear)
        #expect(i.interpret("", asked: 0, open: [0]) == .nothing)
    }

    @Test(arguments: [("공일공 일이삼사 오육칠팔이에요", "+821012345678"), ("010-1234-5678입니다", "+821012345678"),
                      ("제 번호는 공일공에 구팔칠육 오사삼이", "+821098765432")])
    func phoneNumbers(reply: String, expected: String) {
        #expect(Self.answer(reply, to: "연락처가 어떻게 되세요?") == expected, "\(reply)")
    }

    @Test(arguments: [("내일 오후 두 시", "2026-11-27T14:00"), ("다음 주 월요일", "2026-11-30"), ("모레 10시 반이요", "2026-11-28T10:30"),
                      ("12월 3일 오전 열한 시 삼십 분", "2026-12-03T11:30"), ("이번 주 금요일 세 시", "2026-11-27T15:00"), ("2시요", "14:00")])
    func datesAndTimes(reply: String, expected: String) {
        #expect(Self.answer(reply, to: "언제가 편하세요?") == expected, "\(reply)")
    }

    @Test(arguments: [("세 명이요", "3"), ("3명", "3"), ("열두 명 정도요", "12"), ("둘이요", "2"), ("오만 원", "50000 KRW"), ("5만 원이요", "50000 KRW"),
                      ("삼천오백 원", "3500 KRW"), ("아무도 없어요", "0")])
    func countsAndAmounts(reply: String, expected: String) {
        #expect(Self.answer(reply, to: "몇 분이 오시나요?") == expected, "\(reply)")
    }

    /// One count, or none, as in English: two counts in one reply are asked again; one the caller
    /// takes back is replaced; a clock's hour beside a count is no second count.
    @Test func twoCountsInOneReplyAreNoCount() {
        let howMany = "몇 분이 오시나요?"
        #expect(Self.answer("다섯 명이나 여섯 명이요", to: howMany) == nil)
        #expect(Self.answer("삼만 원에서 사만 원 사이요", to: "예산이 얼마인가요?") == nil)
        #expect(Self.answer("일곱 명, 아니 여덟 명이요", to: howMany) == "8")
        #expect(Self.answer("두 명이요, 세 시에 갈게요", to: howMany) == "2")
        #expect(Self.answer("네 명, 네 명이요", to: howMany) == "4", "the same count twice is one")
    }

    @Test func namesLoseTheirEndings() {
        #expect(Self.answer("김민수입니다", to: "성함이 어떻게 되세요?") == "김민수")
        #expect(Self.answer("제 이름은 이지은이에요", to: "성함이 어떻게 되세요?") == "이지은")
    }

    @Test func numbersAreSpokenAsKoreanSpeakersSayThem() {
        #expect(KoreanSpeech.speakable("오후 2시에 3명 예약, 연락처 010-1234-5678.") == "오후 두 시에 세 명 예약, 연락처 공일공, 일이삼사, 오육칠팔.")
        #expect(KoreanSpeech.speakable("12월 3일, 5만 원") == "12월 3일, 5만 원", "dates and amounts are Sino-Korean: espeak-ng reads them so")
        #expect(KoreanSpeech.readBack("+821012345678", as: .phoneNumber, now: Self.now, calendar: Self.calendar) == "공일공, 일이삼사, 오육칠팔")
        #expect(KoreanSpeech.readBack("2026-11-27T14:30", as: .dateTime, now: Self.now, calendar: Self.calendar) == "11월 27일 오후 두 시 반")
    }

    /// A whole conversation: Korean lines from the greeting to the goodbye, a re-ask in Korean, a
    /// phone number read back and confirmed with "네".
    @Test func aConversationRunsInKorean() {
        var context = ConversationContext(purpose: "회의 일정 확인", questions: ["내일 회의에 참석하실 수 있나요?", "연락처가 어떻게 되세요?"],
                                          displayName: "ABC 회사", language: "ko", greetingTemplate: DialoguePhrases.korean.greeting,
                                          closingTemplate: DialoguePhrases.korean.closing)
        context.readBack = [.phoneNumber]
        var dialogue = ScriptedDialogue(context: context, now: Self.now)
        guard case .ask(let opening, 0) = dialogue.start() else { Issue.record("no first question"); return }
        #expect(opening.hasPrefix("안녕하세요, ABC 회사의 AI 상담원입니다.") && opening.hasSuffix("참석하실 수 있나요?"))
        guard case .ask(let reask, 0) = dialogue.caller(said: "글쎄요") else { Issue.record("no re-ask"); return }
        #expect(reask == "죄송합니다, 잘 이해하지 못했어요. 내일 회의에 참석하실 수 있나요?")
        guard case .ask(let second, 1) = dialogue.caller(said: "네, 참석할게요.") else { Issue.record("no second question"); return }
        #expect(second == "감사합니다. 연락처가 어떻게 되세요?")
        guard case .ask(let readBack, 1) = dialogue.caller(said: "공일공 일이삼사 오육칠팔이요") else { Issue.record("no read-back"); return }
        #expect(readBack == "공일공, 일이삼사, 오육칠팔, 맞으세요?")
        guard case .close(let goodbye) = dialogue.caller(said: "네") else { Issue.record("no goodbye"); return }
        #expect(goodbye == "시간 내주셔서 감사합니다. 좋은 하루 되세요.")
        #expect(dialogue.tracker.answers.map(\.answerSummary) == ["yes", "+821012345678"])
        #expect(dialogue.tracker.answers.map(\.status) == [.answered, .answered])
    }
}
