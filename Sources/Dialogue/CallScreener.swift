import Knowledge

/// What a call screener says, told from what a person says: the phone's assistant that answers
/// for the callee ("the person you're calling is using a screening service — say your name and
/// why you're calling"), holds the agent while the callee decides, and puts them through or turns
/// the call away.
///
/// A person asks "Who's calling?" too; what sets a screener apart is that it asks on someone
/// else's behalf or names itself: a prompt is a request for the caller's name or reason together
/// with a word of a go-between (the person you're calling, screening, assistant, pass on, see if
/// they're available). A plain "Who is this?" stays the dialogue's `whoIsCalling`.
///
/// English words are matched as whole words; Korean phrases inside the text (particles attach).
/// The phrases here are tuned on `CallScreenerTests`; `make bench`'s `screeners` suite reports on
/// wordings not among them.
public enum CallScreener {
    /// How a call went past a screener (`TaskTracker.screener`).
    public enum Passage: String, Sendable, Equatable, Codable {
        /// The agent said who it is and why, and waits for the person.
        case waiting
        /// The person came on the line.
        case personReached = "person_reached"
        /// The screener turned the call away, or the call ended (or the wait ran out) before the person came.
        case screenedOut = "screened_out"
    }

    public enum Heard: Sendable, Equatable {
        /// The screener asks who is calling and why.
        case prompt
        /// The screener names itself without asking yet ("… is using a screening service."): its question follows.
        case announcement
        /// The screener asks the agent to wait while the callee decides.
        case holding
        /// The callee will not take the call: the screener says so.
        case turnedAway
    }

    /// What `text` is, when a screener said it; nil: a person's words (or a screener's we don't know).
    public static func heard(_ text: String) -> Heard? {
        let lowered = " " + ReplyInterpreter.words(text).joined(separator: " ") + " "
        func says(_ phrases: [String]) -> Bool { phrases.contains { lowered.contains(" \($0) ") } }
        let korean = Hangul.occurs(in: text)
        func saysKorean(_ phrases: [String]) -> Bool { korean && KoreanReply.says(phrases, in: text) }

        if says(turnedAwayEnglish) || saysKorean(turnedAwayKorean) { return .turnedAway }
        let asks = says(asksNameOrReasonEnglish) || saysKorean(asksNameOrReasonKorean)
        let goBetween = says(goBetweenEnglish) || saysKorean(goBetweenKorean)
        // An answering machine asks for a name too ("leave your name and number after the tone").
        let machine = says(machineEnglish) || saysKorean(machineKorean)
        // Told to state a name (and why): the screener's form; a person asks "Who's calling?". Heard
        // alone it stands for the whole prompt, whose go-between words the recognizer may have lost.
        let instructs = says(statesNameEnglish) || saysKorean(statesNameKorean)
        if (asks && goBetween || instructs) && !machine { return .prompt }
        if says(holdingEnglish) || saysKorean(holdingKorean) || acknowledges(text) { return .holding }
        if !machine, says(announcesEnglish) || saysKorean(announcesKorean) { return .announcement }
        return nil
    }

    /// Whether `text` opens as a person coming on the line does — a hello, a yes, their name — so
    /// that words behind a screener that are neither its known ones nor a greeting ("I'm afraid
    /// that won't be possible") are taken for the screener's, and the agent keeps waiting.
    public static func personGreets(_ text: String) -> Bool {
        let words = ReplyInterpreter.words(text)
        let spaced = " " + words.joined(separator: " ") + " "
        return words.prefix(3).contains(where: greetingWords.contains) || greetingPhrases.contains { spaced.contains(" \($0) ") }
            || KoreanReply.says(greetingsKorean, in: text) || words.first.map(KoreanReply.shortYeses.contains) == true
    }

    static let greetingWords: Set<String> = ["hello", "hi", "hey", "yes", "yeah", "yep", "speaking", "hiya"]
    static let greetingPhrases = ["this is", "it's me", "who's this", "who is this", "who is it", "i'm here", "you're through", "go ahead"]
    static let greetingsKorean = ["여보세요", "바꿨습니다", "바꿨어요", "전화 받았", "말씀하세요", "네 말씀"]

    /// Only a thank-you or an okay: the screener taking the agent's answer, not a person's hello.
    static func acknowledges(_ text: String) -> Bool {
        let words = KoreanReply.words(text.lowercased())
        return !words.isEmpty && words.allSatisfy(acknowledgements.contains)
    }

    /// What only an answering machine asks for: a message at its tone.
    static let machineEnglish = ["after the tone", "after the beep", "at the tone", "voicemail", "voice mail", "leave a message", "leave your message"]
    static let machineKorean = ["음성 사서함", "음성사서함", "삐 소리", "메시지를 남겨"]
    /// A request for the caller's name, who they are, or why they call.
    static let asksNameOrReasonEnglish = [
        "your name", "who is calling", "who's calling", "who you are", "who's this", "who is this", "reason for", "why you're calling",
        "why you are calling", "what you're calling about", "what you are calling about", "purpose of", "what this is about",
        "what it's about", "what it is about", "what this call is about", "the nature of",
    ]
    /// The caller told to give their name or reason, as a screener words it.
    static let statesNameEnglish = ["say your name", "state your name", "record your name", "give your name", "your name and why",
                                    "your name and the reason", "your name and reason", "name and reason for", "your name and purpose",
                                    "your name and the purpose", "name and what you're calling about"]
    static let statesNameKorean = ["성함과 용건", "이름과 용건", "성함과 전화", "이름과 전화", "성함과 통화", "용건을 말씀", "용건 말씀"]
    /// Words of someone answering for another: the callee in the third person, the service itself.
    static let goBetweenEnglish = [
        "screening", "screen", "screens", "screened", "assistant", "the person you", "this person", "the person you're",
        "they'll", "they will", "he'll", "she'll", "pass it on", "pass it along", "pass that on", "pass that along", "let them know",
        "see if", "whether they", "is available", "are available", "forward", "get a copy", "automated",
    ]
    /// A screener naming itself.
    static let announcesEnglish = ["screening", "screening service", "call screen", "call screening", "call assist", "assistant"]
    static let announcesKorean = ["스크리닝", "통화 비서", "통화비서", "비서", "도우미", "자동 응답"]
    static let acknowledgements: Set<String> = ["thanks", "thank", "you", "okay", "ok", "got", "it", "alright", "all", "right", "great",
                                                "감사합니다", "고맙습니다", "알겠습니다", "확인했습니다"]
    static let holdingEnglish = [
        "stay on the line", "please hold", "hold on", "hold please", "one moment", "just a moment", "one second", "just a second",
        "while i", "i'll see if", "let me see if", "checking if", "checking whether", "connecting you", "trying to reach", "trying to connect",
    ]
    static let turnedAwayEnglish = [
        "not available", "unavailable", "can't take your call", "cannot take your call", "can't come to the phone",
        "cannot come to the phone", "isn't able to take", "is not able to take", "aren't able to take", "declined", "not accepting",
        "doesn't want to take", "does not want to take", "won't be able to take", "will not be able to take",
    ]
    static let asksNameOrReasonKorean = ["성함", "이름", "누구신지", "누구인지", "어디신지", "어디서 전화", "용건", "전화하신 이유", "전화한 이유",
                                         "통화 목적", "무슨 일로", "무슨 일인지", "무슨 용무", "용무"]
    static let goBetweenKorean = ["대신", "전달", "비서", "스크리닝", "도우미", "받으시는 분", "받는 분", "통화하려는 분", "통화하실 분",
                                  "상대방", "고객님께", "연결해 드릴지", "확인해 보", "자동 응답", "녹음"]
    static let holdingKorean = ["잠시만", "기다려 주", "기다려주", "연결해 드리", "연결 중", "확인 중", "확인하고 있", "확인하는 중"]
    static let turnedAwayKorean = ["받을 수 없", "받지 않", "통화할 수 없", "통화가 어렵", "통화하기 어렵", "연결할 수 없", "연결이 어렵",
                                   "거절", "받기 어렵"]
}
