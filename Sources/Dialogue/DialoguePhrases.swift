import Foundation

/// What the local dialogue says besides the operator's questions, in the call's language: English
/// and Korean (`language: ko`). One place, so a newcomer adding a language finds every line.
public struct DialoguePhrases: Sendable {
    public var thankYou: String
    public var thankYouNoted: String
    public var thatsAllRight: String
    public var notCaught: String
    public var notUnderstood: String
    public var readBackWrong: String
    /// Before a read-back put again (neither yes nor no was heard).
    public var sorry: String
    public var letsGoOn: String
    public var letsContinue: String
    public var cannotTransfer: String
    public var transferring: String
    public var callBackLater: String
    public var stillThere: String
    public var notAGoodTime: String
    public var howCanIHelp: String
    public var anythingElse: String
    public var now: String
    public var noInformationTransferring: String
    public var noInformation: String
    /// Said before the question to a caller who asked who is calling: `{display_name}`, `{purpose}`.
    public var introduction: String
    /// The same on a call the caller made, which nobody placed about anything: `{display_name}`.
    public var inboundIntroduction: String
    /// A read-back's question around the spoken value (`{value}`).
    public var readBackQuestion: String
    /// The default greeting and closing, when neither the call nor the server's configuration names one.
    public var greeting: String
    public var closing: String
    /// The default greeting of an inbound call (`inbound.greeting` left as it ships): `{display_name}`.
    public var inboundGreeting: String
    /// The call's plain summary for the operator (`ConversationResult.summarize`): its opening
    /// (`{purpose}`), what stands for each status, and the line for a requested callback.
    public var summaryOpening: String
    public var summaryRefused: String, summaryUnclear: String, summaryNoAnswer: String, summaryNotAsked: String
    public var summaryCallback: String
    /// The summary's line when a call screener answered: the person came on, or did not.
    public var summaryScreenerPassed: String, summaryScreenedOut: String
    /// The summary's line when a phone menu answered: the keys pressed (`{path}`), and no way through.
    public var summaryMenuPressed: String, summaryMenuNoRoute: String, summaryMenuTimedOut: String
    /// … when a choice was said (`{path}`: keys and words said).
    public var summaryMenuChose: String
    /// The summary's line when the caller switched language (`{languages}`: their codes in order).
    public var summarySwitchedLanguage: String

    public static let english = DialoguePhrases(
        thankYou: "Thank you.", thankYouNoted: "Thank you, noted.", thatsAllRight: "That's all right.",
        notCaught: Reask.notCaught, notUnderstood: Reask.notUnderstood, readBackWrong: Reask.readBackWrong, sorry: "Sorry,",
        letsGoOn: "I'm sorry, let's go on.", letsContinue: "Let's continue.",
        cannotTransfer: "I'm sorry, I cannot connect you to a person on this call.",
        transferring: "Of course. I will connect you to a person now. One moment, please.",
        callBackLater: "Of course, we will call you back another time.", stillThere: "Hello, are you still there?",
        notAGoodTime: "It seems this is not a good time.", howCanIHelp: "How can I help you?",
        anythingElse: "Is there anything else I can help you with?", now: "Now,",
        noInformationTransferring: "I'm sorry, I don't have that information. I will connect you to a person who can help. One moment, please.",
        noInformation: "I'm sorry, I don't have that information, but I will pass your question on.",
        introduction: "This is the AI assistant of {display_name}, calling about {purpose}.",
        inboundIntroduction: "This is the AI assistant of {display_name}.",
        readBackQuestion: "I have {value}. Is that right?",
        greeting: "Hello, this is the AI assistant of {display_name}, calling about {purpose}.",
        closing: "Thank you for your time. Have a nice day.",
        inboundGreeting: "Hello, you have reached the AI assistant of {display_name}. I can take a message.",
        summaryOpening: "Call about {purpose}.", summaryRefused: "refused", summaryUnclear: "unclear", summaryNoAnswer: "asked, no answer",
        summaryNotAsked: "not asked", summaryCallback: "The callee asked to be called back another time.",
        summaryScreenerPassed: "A call screener answered first; the person came on the line.",
        summaryScreenedOut: "A call screener answered; the person did not come on the line.",
        summaryMenuPressed: "Phone menu: pressed {path}.", summaryMenuNoRoute: "Phone menu: no option led to the call's purpose or a person.",
        summaryMenuTimedOut: "Phone menu: nobody answered after it.", summaryMenuChose: "Phone menu: chose {path}.",
        summarySwitchedLanguage: "The caller switched language: {languages}.")

    public static let korean = DialoguePhrases(
        thankYou: "감사합니다.", thankYouNoted: "네, 알겠습니다.", thatsAllRight: "네, 괜찮습니다.",
        notCaught: "죄송합니다, 잘 못 들었어요.", notUnderstood: "죄송합니다, 잘 이해하지 못했어요.", readBackWrong: "죄송합니다.", sorry: "죄송합니다,",
        letsGoOn: "죄송합니다, 다음으로 넘어갈게요.", letsContinue: "계속하겠습니다.",
        cannotTransfer: "죄송하지만 이 통화에서는 상담원을 연결해 드릴 수 없습니다.",
        transferring: "네, 지금 상담원에게 연결해 드리겠습니다. 잠시만 기다려 주세요.",
        callBackLater: "네, 다음에 다시 연락드리겠습니다.", stillThere: "여보세요, 듣고 계세요?",
        notAGoodTime: "지금은 통화가 어려우신 것 같네요.", howCanIHelp: "무엇을 도와드릴까요?",
        anythingElse: "더 궁금하신 점 있으세요?", now: "그럼,",
        noInformationTransferring: "죄송합니다, 그 내용은 제가 알지 못합니다. 도와드릴 수 있는 분께 연결해 드리겠습니다. 잠시만 기다려 주세요.",
        noInformation: "죄송합니다, 그 내용은 제가 알지 못하지만 문의하신 내용을 전달하겠습니다.",
        introduction: "저는 {display_name}의 AI 상담원이고, {purpose} 관련해서 전화드렸습니다.",
        inboundIntroduction: "저는 {display_name}의 AI 상담원입니다.",
        readBackQuestion: "{value}, 맞으세요?",
        greeting: "안녕하세요, {display_name}의 AI 상담원입니다. {purpose} 관련해서 전화드렸습니다.",
        closing: "시간 내주셔서 감사합니다. 좋은 하루 되세요.",
        inboundGreeting: "안녕하세요, {display_name}의 AI 상담원입니다. 전하실 말씀을 남겨 주시면 전해 드리겠습니다.",
        summaryOpening: "{purpose} 관련 통화.", summaryRefused: "답변 거부", summaryUnclear: "불명확", summaryNoAnswer: "질문했으나 답변 없음",
        summaryNotAsked: "질문하지 않음", summaryCallback: "상대방이 다음에 다시 전화해 달라고 했습니다.",
        summaryScreenerPassed: "통화 비서가 먼저 받았고, 이후 본인이 통화했습니다.",
        summaryScreenedOut: "통화 비서가 받았고, 본인은 통화하지 않았습니다.",
        summaryMenuPressed: "자동 응답 메뉴: {path} 번호를 눌렀습니다.", summaryMenuNoRoute: "자동 응답 메뉴: 통화 목적이나 상담원으로 가는 번호가 없었습니다.",
        summaryMenuTimedOut: "자동 응답 메뉴: 이후 아무도 받지 않았습니다.", summaryMenuChose: "자동 응답 메뉴: {path} 순서로 선택했습니다.",
        summarySwitchedLanguage: "상대방이 통화 중 언어를 바꿨습니다: {languages}.")

    func menuSummary(_ menu: MenuPassage) -> String {
        let chose = menu.pressed.contains { $0.key.isEmpty } ? summaryMenuChose : summaryMenuPressed
        let pressed = menu.pressed.isEmpty ? "" : chose.replacingOccurrences(of: "{path}", with: menu.path)
        let end = switch menu.state {
        case .noRoute: summaryMenuNoRoute
        case .timedOut: summaryMenuTimedOut
        case .navigating, .personReached: ""
        }
        return [pressed, end].filter { !$0.isEmpty }.joined(separator: " ")
    }

    func screenerSummary(_ passage: CallScreener.Passage) -> String {
        passage == .personReached ? summaryScreenerPassed : summaryScreenedOut
    }

    /// The read-back of `spoken`.
    public func readBack(_ spoken: String) -> String { readBackQuestion.replacingOccurrences(of: "{value}", with: spoken) }

    /// The phrases of `language` ("ko…": Korean; anything else: English).
    public static func of(_ language: String) -> DialoguePhrases {
        isKorean(language) ? .korean : .english
    }

    /// Whether a call in `language` ("ko", "ko-KR") is held in Korean.
    public static func isKorean(_ language: String) -> Bool { language.lowercased().hasPrefix("ko") }
}
