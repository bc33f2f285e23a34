import Foundation

/// When the local engine — no language model — may answer a caller's question from a FAQ: the
/// best FAQ match must hold enough of the question's words. Below that it says it will pass the
/// question on rather than read out a wrong answer.
public struct KnowledgeAnswerPolicy: Sendable, Equatable {
    /// Least share of the question's terms the FAQ row must hold (`KnowledgeHit.coverage`), when
    /// there are no embeddings.
    public var threshold: Double
    /// Least similarity of the question to the row (`KnowledgeHit.similarity`: with multilingual-e5-
    /// small, the mean of its cosine with the row as a passage and with the row's question) when
    /// there are embeddings — for a row not in Korean, and for a row in Korean, whose similarities
    /// run higher. Each is the lowest at which the offline agent's answers were right 98 % of the
    /// time on the tuning half of the labelled set (`make bench`'s knowledge suite; its test half
    /// and the clinic set report what they give: docs/guide/tools-and-knowledge.md).
    public var similarityThreshold: Double
    public var koreanSimilarityThreshold: Double

    public static let standard = KnowledgeAnswerPolicy(threshold: 0.5, similarityThreshold: 0.897, koreanSimilarityThreshold: 0.913)

    public init(threshold: Double, similarityThreshold: Double, koreanSimilarityThreshold: Double) {
        self.threshold = threshold
        self.similarityThreshold = similarityThreshold
        self.koreanSimilarityThreshold = koreanSimilarityThreshold
    }

    /// The FAQ row to answer with, if the best FAQ hit clears the threshold.
    public func answer(from hits: [KnowledgeHit]) -> KnowledgeHit? {
        guard let best = hits.first(where: \.chunk.isFAQ) else { return nil }
        return isConfident(best) ? best : nil
    }

    /// Whether `hit` is close enough to the question to answer from: its similarity with a model,
    /// the share of the question's terms it holds without.
    public func isConfident(_ hit: KnowledgeHit) -> Bool {
        guard let similarity = hit.similarity else { return hit.coverage >= threshold }
        return similarity >= similarityThreshold(for: hit.chunk)
    }

    /// The similarity `chunk` must reach: Korean's when it is written in Hangul.
    public func similarityThreshold(for chunk: KnowledgeChunk) -> Double {
        Hangul.occurs(in: chunk.title) || Hangul.occurs(in: chunk.text) ? koreanSimilarityThreshold : similarityThreshold
    }

    /// Whether a transcribed reply asks something (the recognizer does not always write the
    /// question mark): a question mark, an English question opening, or a Korean question ending
    /// or question word.
    public static func isQuestion(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasSuffix("?") || trimmed.hasSuffix("？") { return true }
        let words = KnowledgeTerms.words(of: trimmed)
        if let first = words.first, questionOpenings.contains(first) { return true }
        if words.count >= 2, ["i'd", "id", "i"].contains(words[0]) || words[0] == "please",
           words.prefix(5).contains(where: { ["wonder", "know", "wondering", "ask", "tell"].contains($0) }) { return true }
        let unpunctuated = trimmed.trimmingCharacters(in: .punctuationCharacters)
        if koreanEndings.contains(where: unpunctuated.hasSuffix) { return true }
        return koreanQuestionWords.contains(where: trimmed.contains)
    }

    static let questionOpenings: Set<String> = [
        "what", "what's", "whats", "when", "where", "which", "who", "whom", "whose", "why", "how", "do", "does", "did", "is", "are",
        "can", "could", "will", "would", "should", "may", "am", "have", "has", "was", "were", "any", "tell",
    ]
    /// Endings that ask ("있나요", "할까요", "인가요", "됩니까"); "예요"/"어요" also end statements, so they do not count.
    static let koreanEndings = ["나요", "까요", "가요", "니까", "는지", "을까", "죠", "지요", "냐"]
    static let koreanQuestionWords = ["어떻게", "언제", "어디", "얼마", "무엇", "뭐", "몇", "왜", "누가", "어느", "어떤"]
}
