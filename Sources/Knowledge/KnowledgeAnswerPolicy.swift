import Foundation

/// When the local engine — no language model — may answer a caller's question from a FAQ: the
/// best FAQ match must hold enough of the question's words. Below that it says it will pass the
/// question on rather than read out a wrong answer.
public struct KnowledgeAnswerPolicy: Sendable, Equatable {
    /// Least share of the question's terms the FAQ row must hold (`KnowledgeHit.coverage`), when
    /// there are no embeddings.
    public var threshold: Double
    /// Least cosine similarity of the question's and the row's embeddings, when there are. Set on
    /// the knowledge bench (multilingual-e5-small): at 0.90 about one answer in ten read out
    /// was the wrong row, at 0.89 one in eight (docs/guide/tools-and-knowledge.md, "Tools and knowledge").
    public var similarityThreshold: Double

    public static let standard = KnowledgeAnswerPolicy(threshold: 0.5, similarityThreshold: 0.90)

    public init(threshold: Double, similarityThreshold: Double) {
        self.threshold = threshold
        self.similarityThreshold = similarityThreshold
    }

    /// The FAQ row to answer with, if the best FAQ hit clears the threshold.
    public func answer(from hits: [KnowledgeHit]) -> KnowledgeHit? {
        guard let best = hits.first(where: \.chunk.isFAQ) else { return nil }
        if let similarity = best.similarity { return similarity >= similarityThreshold ? best : nil }
        return best.coverage >= threshold ? best : nil
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
