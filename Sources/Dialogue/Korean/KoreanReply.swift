import Knowledge

/// What Korean replies say, for the local dialogue: yes and no in their usual forms, hedges,
/// refusals, "who is this?", "call me later". Korean attaches particles and endings to words
/// ("참석할게요", "상담원이랑"), so phrases are found inside the text, not as whole words — except
/// the one-syllable answers ("네", "예", "응"), which are only answers standing alone.
enum KoreanReply {
    static let noes = ["아니요", "아니오", "아뇨", "아니에요", "아닙니다", "아니", "안 돼", "안돼", "안 됩니다", "안됩니다", "안 될", "안될",
                       "못 ", "못가", "못해", "못할", "못합니다", "안 갈", "안 가", "안 할", "안 해", "싫어", "싫습니다", "없어요", "없습니다",
                       "불가능", "어렵겠", "힘들 것", "힘들겠"]
    static let yeses = ["그래요", "그럼요", "그렇습니다", "좋아요", "좋습니다", "좋네요", "맞아요", "맞습니다", "맞네요", "가능해요", "가능합니다",
                        "할게요", "갈게요", "참석할게요", "참석합니다", "괜찮아요", "괜찮습니다", "물론", "당연", "알겠습니다", "알겠어요", "있어요", "있습니다"]
    /// Answers that are a whole word: "네" inside "네 명" is four.
    static let shortYeses: Set<String> = ["네", "예", "응", "넵", "네네", "예예"]
    static let shortNoes: Set<String> = ["아니", "노"]
    static let fillers: Set<String> = ["음", "어", "아", "그", "저", "저기", "에", "으음", "흠", "글쎄"]
    static let hedges = ["글쎄", "모르겠", "잘 몰라", "몰라요", "아마", "확실하지", "생각해 볼게", "생각해볼게", "봐야 알", "봐야알"]
    static let refusals = ["말씀드리기 어려", "말씀 드리기 어려", "말씀드리기 곤란", "말씀 못", "말하기 싫", "말하고 싶지 않", "대답하기 싫",
                           "대답하고 싶지 않", "알려드릴 수 없", "알려 드릴 수 없", "알려드리기 어려", "비밀", "답변하기 어려", "답하기 곤란",
                           "답변 안", "대답 안"]
    static let whoIsCalling = ["누구세요", "누구시", "누구신가요", "누군데", "어디세요", "어디시", "어디서 전화", "무슨 일", "무슨 용건",
                               "뭐 때문에", "무슨 전화"]
    static let callBack = ["나중에", "다시 전화", "지금 바빠", "바빠서", "바쁜데", "바쁩니다", "운전 중", "운전중", "회의 중", "회의중",
                           "다음에 전화", "이따가", "이따 전화", "통화하기 어려", "지금은 통화", "통화 어려"]
    /// Korean asks for a person with particles attached ("상담원이랑", "상담원 연결").
    static let wantsPerson = ["상담원", "상담사", "사람이랑", "사람하고", "사람과 통화", "사람 바꿔", "직원 바꿔", "직원이랑", "담당자"]

    /// The words, punctuation dropped.
    static func words(_ text: String) -> [String] {
        text.split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    static func says(_ phrases: [String], in text: String) -> Bool {
        let spaced = " " + words(text).joined(separator: " ") + " "
        return phrases.contains { spaced.contains($0) }
    }

    /// true for yes, false for no, nil when neither: the first said decides ("아니요, 괜찮습니다" is a no).
    static func polarity(of text: String) -> Bool? {
        let spaced = " " + words(text).joined(separator: " ") + " "
        var first: (at: String.Index, yes: Bool)?
        func consider(_ phrase: String, yes: Bool) {
            guard let range = spaced.range(of: phrase) else { return }
            if first == nil || range.lowerBound < first!.at { first = (range.lowerBound, yes) }
        }
        for phrase in noes { consider(phrase, yes: false) }
        for phrase in yeses { consider(phrase, yes: true) }
        for word in shortYeses { consider(" \(word) ", yes: true) }
        for word in shortNoes { consider(" \(word) ", yes: false) }
        return first?.yes
    }

    /// Whether the reply has words besides fillers ("음…", "어").
    static func hasContent(_ text: String) -> Bool {
        words(text).contains { !fillers.contains($0) }
    }

    /// A name said with its endings: "김민수입니다", "제 이름은 김민수예요" → "김민수".
    static func name(in text: String) -> String? {
        var text = text
        for lead in ["제 이름은", "이름은", "저는", "전", "제가"] where text.hasPrefix(lead) { text = String(text.dropFirst(lead.count)) }
        let candidates = words(text).map { word -> String in
            var word = word
            for ending in ["이라고 합니다", "라고 합니다", "이라고요", "라고요", "입니다", "이에요", "예요", "인데요", "이요", "요"] where word.hasSuffix(ending) && word.count > ending.count + 1 {
                word = String(word.dropLast(ending.count))
                break
            }
            return word
        }
        let hangulName = candidates.last { word in
            (2...4).contains(word.count) && word.unicodeScalars.allSatisfy(Hangul.isSyllable)
                && !shortYeses.contains(word) && !fillers.contains(word) && !["이름", "성함", "제이름"].contains(word)
        }
        return hangulName ?? candidates.last { $0.first?.isUppercase == true }
    }
}
