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

    /// English wording rules, most specific first ("What is your phone number?" asks for a number
    /// to dial, not a count; "When can you come — is Monday fine?" is still a date).
    public init(question: String) {
        if Hangul.occurs(in: question) {
            self.init(koreanQuestion: question)
            return
        }
        let text = " " + ReplyInterpreter.words(question).joined(separator: " ") + " "
        func has(_ phrases: String...) -> Bool { phrases.contains { text.contains(" \($0) ") } }
        if has("phone", "phone number", "mobile", "contact number", "callback number", "reach you", "number to call", "call you back on", "call you on") {
            self = .phoneNumber
        } else if has("name", "who am i speaking", "who am i talking") {
            self = .name
        } else if has("when", "what time", "which time", "what day", "which day", "what date", "which date", "date") {
            self = .dateTime
        } else if has("how many", "how much", "how old", "how long", "amount", "budget", "price", "cost", "number of") {
            self = .number
        } else if let first = text.split(separator: " ").first, Self.yesNoOpeners.contains(String(first)) {
            self = .yesNo
        } else {
            self = .freeText
        }
    }

    static let yesNoOpeners: Set<String> = [
        "can", "could", "will", "would", "do", "does", "did", "is", "are", "was", "were", "have", "has", "had",
        "should", "shall", "may", "might", "must", "am", "isn't", "aren't", "don't", "doesn't", "won't", "wouldn't", "can't",
    ]

    /// Korean wording rules, most specific first ("연락처가 어떻게 되세요?" asks for a number to
    /// dial; "몇 분이 오세요?" a count; "언제가 편하세요?" a date). A question asking what, which,
    /// where, why or how is open; any other is a yes/no question ("참석하실 수 있나요?").
    init(koreanQuestion question: String) {
        let text = question.replacingOccurrences(of: " ", with: "")
        func has(_ phrases: String...) -> Bool { phrases.contains { text.contains($0) } }
        if has("전화번호", "연락처", "휴대폰", "핸드폰", "연락드릴번호", "번호가") {
            self = .phoneNumber
        } else if has("성함", "이름") {
            self = .name
        } else if has("몇명", "몇분이", "몇분께서", "인원", "얼마", "몇개", "몇살", "몇시간", "몇번", "금액", "예산", "가격") {
            self = .number
        } else if has("언제", "몇시", "날짜", "무슨요일", "어느요일", "며칠", "일정", "시간이") {
            self = .dateTime
        } else if has("무엇", "뭐", "무슨", "어떤", "어디", "어느", "왜", "어떻게", "누가", "누구") {
            self = .freeText
        } else {
            self = .yesNo
        }
    }
}
