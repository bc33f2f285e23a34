import Flows
import Knowledge

/// What a question asks for, read from its wording (or stated by a flow's `ask` step): the local
/// dialogue extracts that kind of answer, normalised, into `answer_summary`.
public enum AnswerKind: String, Sendable, Equatable, CaseIterable {
    /// "Can you attend?" → `yes` / `no`.
    case yesNo = "yes_no"
    /// "May I have your name?" → `Jane Smith`.
    case name
    /// "What number can we reach you on?" → E.164, `+821012345678`.
    case phoneNumber = "phone_number"
    /// "When would suit you?" → ISO 8601, `2026-11-23T14:00`.
    case dateTime = "date_time"
    /// "How many people are coming?" → `3`; amounts keep their currency, `50 USD`.
    case number
    /// One of a flow step's `choices`, as written there.
    case choice
    /// Anything else: the reply itself.
    case freeText = "free_text"

    /// The kind a flow's `ask` step states.
    public init(_ kind: FlowFieldKind) {
        self = switch kind {
        case .yesNo: .yesNo
        case .choice: .choice
        case .name: .name
        case .number: .number
        case .dateTime: .dateTime
        case .phoneNumber: .phoneNumber
        case .freeText: .freeText
        }
    }

    /// The grammar first, then the words (English). A question that opens as a yes/no question
    /// ("Can you join the budget review on Monday?", "Is the number we have still right?") is one
    /// whatever nouns it carries — unless it asks to be told something ("May I have your name?",
    /// "Could you give me a number to call?") or whether there is one ("Do you have a number we
    /// can reach you on?"). A question word that says what it asks for decides next, whatever
    /// nouns follow: "When would be a good time to phone you?" asks for a time, "Who will sign for
    /// it?" for a name, "How many phone lines …?" for a count. Otherwise its words say what it
    /// asks for, most specific first ("What is your phone number?" asks for a number to dial, not a
    /// count; "Which number is best for reaching you?" too — a number to reach someone on — while
    /// "What is your order number?" is told as said).
    public init(question: String) {
        if Hangul.occurs(in: question) {
            self.init(koreanQuestion: question)
            return
        }
        let words = ReplyInterpreter.words(question)
        let text = " " + words.joined(separator: " ") + " "
        func has(_ phrases: String...) -> Bool { phrases.contains { text.contains(" \($0) ") } }
        let opensAsYesNo = words.first.map(Self.yesNoOpeners.contains) ?? false
        if opensAsYesNo, !Self.requestOpenings.contains(where: { words.starts(with: $0) }) {
            self = .yesNo
        } else if let kind = Self.questionWordKinds.first(where: { words.starts(with: $0.words) })?.kind {
            self = kind
        } else if has("phone", "phone number", "mobile", "contact number", "callback number", "reach you", "number to call", "call you back on", "call you on")
                    || words.contains("number") && !has("number of") && words.contains(where: Self.contactVerbs.contains) {
            self = .phoneNumber
        } else if has("name", "who am i speaking", "who am i talking") {
            self = .name
        } else if has("when", "what time", "which time", "what day", "which day", "what date", "which date", "date", "a time", "a good time", "a day",
                      "best time", "good time", "convenient time") {
            self = .dateTime
        } else if has("how many", "how much", "how old", "how long", "amount", "budget", "price", "cost", "number of")
                    || words.contains(where: Self.sumsOfMoney.contains) {
            self = .number
        } else {
            self = .freeText
        }
    }

    /// Question words that say what is asked whatever the nouns after them.
    static let questionWordKinds: [(words: [String], kind: AnswerKind)] = [
        (["when"], .dateTime), (["who"], .name), (["whom"], .name), (["whose"], .name),
        (["how", "many"], .number), (["how", "much"], .number), (["how", "old"], .number), (["how", "long"], .number),
    ]

    /// Sums of money a question may ask for by name ("What deposit can you manage?", "What rent do you pay now?").
    /// Not the words that also name a kind of product ("premium", "fare": "Which fare, saver or flexible?").
    static let sumsOfMoney: Set<String> = ["deposit", "fee", "rent", "salary", "wage"]

    /// What one does with a number to dial: a question about a number and one of these asks for one.
    static let contactVerbs: Set<String> = ["reach", "reaching", "call", "calling", "text", "texting", "contact", "contacting", "ring", "ringing", "dial"]

    /// How a question opens when it asks to be told something rather than for a yes or a no.
    static let requestOpenings: [[String]] = [
        "can you tell", "could you tell", "would you tell", "will you tell", "can you give", "could you give", "would you give",
        "can you share", "could you share", "would you share", "can you say", "could you say", "can you spell", "could you spell",
        "can you confirm your", "could you confirm your", "may i have", "can i have", "could i have", "may i get", "can i get",
        "could i get", "may i ask", "can i ask", "could i ask", "may i take", "can i take", "could i take", "can we have", "could we have",
        "do you have a", "do you have an", "have you got a", "is there a", "is there an", "is there any",
    ].map { $0.split(separator: " ").map(String.init) }

    static let yesNoOpeners: Set<String> = [
        "can", "could", "will", "would", "do", "does", "did", "is", "are", "was", "were", "have", "has", "had",
        "should", "shall", "may", "might", "must", "am", "isn't", "aren't", "don't", "doesn't", "won't", "wouldn't", "can't",
    ]

    /// The grammar first, then the words (Korean). A question with a question word (몇, 얼마,
    /// 언제, 어떻게, 누구 …) or that asks to be told ("알려 주시겠어요?", "말씀해 주세요") asks for
    /// what its words name, most specific first ("연락처가 어떻게 되세요?" a number to dial; "몇 분이
    /// 오세요?" a count; "언제가 편하세요?" a date); a question without one is a yes/no question
    /// whatever nouns it carries ("월요일 예산 회의에 오실 수 있나요?").
    init(koreanQuestion question: String) {
        let text = question.replacingOccurrences(of: " ", with: "")
        func has(_ phrases: [String]) -> Bool { phrases.contains { text.contains($0) } }
        guard has(Self.koreanQuestionWords) || has(Self.koreanRequests) else {
            self = .yesNo
            return
        }
        if has(["전화번호", "연락처", "휴대폰", "핸드폰", "연락드릴번호", "번호가", "번호를"]) {
            self = .phoneNumber
        } else if has(["성함", "이름"]) {
            self = .name
        } else if has(["몇명", "몇분이", "몇분께서", "인원", "얼마", "몇개", "몇살", "몇시간", "몇번", "금액", "예산", "가격"]) {
            self = .number
        } else if has(["언제", "몇시", "날짜", "무슨요일", "어느요일", "며칠", "일정", "시간이"]) {
            self = .dateTime
        } else {
            self = .freeText
        }
    }

    /// Words that make a Korean question an open one.
    static let koreanQuestionWords = ["몇", "얼마", "언제", "며칠", "어디", "무엇", "뭐", "무슨", "어떤", "어느", "어떻게", "누구", "누가", "왜"]
    /// Endings that ask to be told something.
    static let koreanRequests = ["알려주", "말씀해주", "말씀해달", "불러주", "적어주"]
}
