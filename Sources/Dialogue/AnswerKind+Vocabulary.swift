/// The words an answer of each kind is made of (English): what the local engine biases the
/// recognizer toward while a question of that kind waits for its answer (`MoonshineTranscriber.Bias`).
extension AnswerKind {
    static let digits = ["zero", "oh", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    static let teens = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
    static let tens = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    static let days = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today", "tomorrow", "tonight", "morning",
                       "afternoon", "evening", "noon", "half", "past", "quarter", "o'clock", "next"]
    /// A read-back's answers: yes, no, or the value again.
    static let readBackReplies = ["yes", "no", "right", "correct"]

    /// Nothing for names, choices and free text: their words are not the kind's (a flow's choices
    /// are the question's own: `ScriptedDialogue.expectedWords`). Nothing
    /// for a yes/no question either: measured, it gained one line in twenty, and it turned a
    /// caller's own question ("Do you sell gift cards?") into "Don't you …" — a no.
    public var expectedWords: [String] {
        switch self {
        case .phoneNumber: Self.digits + ["double", "plus"]
        case .number: Self.digits + Self.teens + Self.tens
        case .dateTime: Self.digits + Self.teens + Self.tens.prefix(5) + Self.days
        case .yesNo, .name, .choice, .freeText: []
        }
    }

    /// A yes/no answer's Korean words.
    static let koreanReadBackReplies = ["네", "아니요"]

    /// The Korean words an answer of this kind is made of: digits, counters, days and parts of
    /// the day, 네/아니요 — never a whole answer. Calls do not prompt Whisper with them
    /// (`ScriptedDialogue.expectedWords`: said back on an unclear line, they were stored as
    /// answers); `make bench`'s `korean` suite prompts with them beside no prompt, to keep
    /// measuring that choice.
    public var koreanExpectedWords: [String] {
        switch self {
        case .yesNo: Self.koreanReadBackReplies
        case .number: Self.koreanNativeNumerals + ["명", "개", "원", "만", "천", "백"]
        case .phoneNumber: Self.koreanDigits
        case .dateTime: Self.koreanDays + ["오전", "오후", "시", "분", "반"]
        case .name, .choice, .freeText: []
        }
    }

    /// Sino-Korean digits, as phone numbers are read.
    static let koreanDigits = ["공", "일", "이", "삼", "사", "오", "육", "칠", "팔", "구"]
    /// Native numerals, as counts before a counter are said.
    static let koreanNativeNumerals = ["한", "두", "세", "네", "다섯", "여섯", "일곱", "여덟", "아홉", "열"]
    static let koreanDays = ["오늘", "내일", "모레", "다음 주", "월요일", "화요일", "수요일", "목요일", "금요일", "토요일", "일요일"]
}
