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

    /// A Korean read-back's answers.
    static let koreanReadBackReplies = ["네", "아니요"]

    /// The Korean answers a question of this kind expects, which Whisper is prompted with (Korean
    /// calls): measured in `make bench`'s `korean` suite, the prompt raised the lines read right
    /// over espeak-ng's Korean from 6 to 9 of 23, yes/no included.
    public var koreanExpectedWords: [String] {
        switch self {
        case .yesNo: ["네", "아니요"]
        case .number: ["한 명", "두 명", "세 명", "네 명", "만 원", "오만 원"]
        case .phoneNumber: ["공일공 일이삼사 오육칠팔"]
        case .dateTime: ["오늘", "내일", "모레", "다음 주 월요일", "오전", "오후 두 시"]
        case .name, .choice, .freeText: []
        }
    }
}
