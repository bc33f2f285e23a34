import Foundation

/// Classifies a caller's reply to one question, for the scripted (no-LLM) dialogue.
///
/// English rules, in order: nothing intelligible → unclear; an explicit refusal → refused;
/// hedging without an answer → unclear; yes/no words → answered with that summary; any other
/// text → answered with the text itself.
public enum AnswerClassifier {
    public struct Classification: Sendable, Equatable {
        public var status: TaskTracker.Status
        public var summary: String?
        public var confidence: Double
    }

    static let refusals = ["rather not", "prefer not", "don't want to", "do not want to", "won't answer", "will not answer",
                           "not going to answer", "no comment", "none of your business", "not tell", "decline to"]
    static let hedges = ["not sure", "don't know", "do not know", "no idea", "maybe", "can't say", "cannot say", "i'm unsure", "unsure"]
    static let fillers: Set<String> = ["hmm", "hm", "uh", "um", "er", "ah", "mm", "erm", "well"]
    static let affirmatives: Set<String> = ["yes", "yeah", "yep", "yup", "sure", "certainly", "absolutely", "definitely", "correct", "right", "ok", "okay"]
    static let negatives: Set<String> = ["no", "nope", "nah", "not", "never", "can't", "cannot", "won't", "don't"]

    public static func classify(_ reply: String) -> Classification {
        let text = reply.lowercased()
        let words = text.split { !$0.isLetter && $0 != "'" }.map(String.init)
        let meaningful = words.filter { !fillers.contains($0) }
        if meaningful.isEmpty { return Classification(status: .unclear, summary: nil, confidence: 0.2) }
        if refusals.contains(where: text.contains) { return Classification(status: .refused, summary: nil, confidence: 0.8) }
        if hedges.contains(where: text.contains) { return Classification(status: .unclear, summary: nil, confidence: 0.3) }
        // The first yes/no word decides ("No, the original location is fine." is a no).
        for word in meaningful {
            if affirmatives.contains(word) { return Classification(status: .answered, summary: "yes", confidence: 0.9) }
            if negatives.contains(word) { return Classification(status: .answered, summary: "no", confidence: 0.9) }
        }
        if text.contains("of course") || text.contains("i can") || text.contains("i will") {
            return Classification(status: .answered, summary: "yes", confidence: 0.8)
        }
        return Classification(status: .answered, summary: reply.trimmingCharacters(in: .whitespaces), confidence: 0.6)
    }
}
