/// The callee's sentiment without a model: words that lean positive or negative in English and
/// Korean, counted over what the callee said. English words are whole words, and a negation
/// ("not", "never", "don't") within the two words before one turns it around ("not bad");
/// Korean stems are matched inside words, as particles and endings attach to them.
public enum SentimentLexicon {
    static let positiveEnglish: Set<String> = [
        "great", "good", "thanks", "thank", "happy", "glad", "perfect", "wonderful", "excellent", "love", "lovely", "nice",
        "appreciate", "helpful", "awesome", "fantastic", "pleased", "brilliant", "delighted", "sure", "definitely",
    ]
    static let negativeEnglish: Set<String> = [
        "bad", "angry", "annoyed", "annoying", "terrible", "awful", "hate", "complaint", "complain", "worst", "rude", "upset",
        "disappointed", "disappointing", "frustrated", "useless", "ridiculous", "spam", "scam", "waste", "horrible", "unacceptable",
    ]
    static let negations: Set<String> = ["not", "never", "no", "don't", "dont", "didn't", "isn't", "wasn't", "won't", "can't", "hardly"]
    static let positiveKorean = ["감사", "고맙", "좋아", "좋습니다", "좋네요", "좋아요", "괜찮", "최고", "만족", "다행", "기쁘", "훌륭"]
    static let negativeKorean = ["싫어", "싫습니다", "짜증", "화나", "화가", "불만", "별로", "최악", "그만", "귀찮", "불편", "실망", "전화하지 마"]

    /// Positive minus negative words in `text`.
    public static func score(_ text: String) -> Int {
        let words = text.lowercased().replacingOccurrences(of: "’", with: "'")
            .split { !($0.isLetter || $0 == "'") }.map(String.init)
        var score = 0
        for (i, word) in words.enumerated() {
            let lean = positiveEnglish.contains(word) ? 1 : negativeEnglish.contains(word) ? -1 : 0
            guard lean != 0 else { continue }
            let negated = words[max(0, i - 2)..<i].contains(where: negations.contains)
            score += negated ? -lean : lean
        }
        score += positiveKorean.filter(text.contains).count - negativeKorean.filter(text.contains).count
        return score
    }

    public static func sentiment(of lines: [String]) -> CallAnalysis.Sentiment {
        let total = lines.reduce(0) { $0 + score($1) }
        return total > 0 ? .positive : total < 0 ? .negative : .neutral
    }
}
