import Flows
import Foundation

/// Who spoke a transcript line.
public enum Speaker: String, Sendable, Codable, Equatable {
    case ai, customer
}

public struct TranscriptEntry: Sendable, Codable, Equatable {
    /// Seconds since the call was answered.
    public var timestamp: Double
    public var speaker: Speaker
    public var text: String

    public init(timestamp: Double, speaker: Speaker, text: String) {
        self.timestamp = timestamp
        self.speaker = speaker
        self.text = text
    }
}

/// Seed 000 §4.4's OutboundCallResult: what a call produced, whatever the engine.
public struct ConversationResult: Sendable, Equatable {
    public var answers: [TaskTracker.Answer]
    public var summary: String
    public var taskCompleted: Bool
    public var transcript: [TranscriptEntry]
    public var durationSeconds: Int
    public var aiTurns: Int
    public var customerTurns: Int
    /// The caller's questions nobody answered on the call (see `TaskTracker.openQuestions`).
    public var openQuestions: [String]
    /// A flow's call: the steps it went through, the fields it gathered and the end it reached
    /// (nil: it did not reach one — a hang-up, a call-back request).
    public var flowPath: [String]?
    public var fields: [String: FlowFieldValue]?
    public var outcome: String?
    /// A call screener answered for the callee: how far the call got past it.
    public var screener: CallScreener.Passage?
    /// A phone menu answered the call: the keys pressed and where they led.
    public var menu: MenuPassage?
    /// A call whose caller switched language: the languages spoken, the call's own first, then
    /// each one switched to, in order ("ko", "en"); nil when the call stayed in its language.
    public var languagesSpoken: [String]?

    public init(tracker: TaskTracker, transcript: [TranscriptEntry], durationSeconds: Int, context: ConversationContext) {
        answers = tracker.finalAnswers
        taskCompleted = tracker.isComplete
        self.transcript = transcript
        self.durationSeconds = durationSeconds
        aiTurns = transcript.filter { $0.speaker == .ai }.count
        customerTurns = transcript.filter { $0.speaker == .customer }.count
        openQuestions = tracker.openQuestions
        flowPath = tracker.flow?.path
        fields = tracker.flow?.fields
        outcome = tracker.flow?.outcome
        screener = tracker.screener
        menu = tracker.menu
        languagesSpoken = tracker.languagesSpoken.isEmpty ? nil : [context.language] + tracker.languagesSpoken
        // A flow's branches leave some questions unasked by design: the summary names those it reached.
        let reached = tracker.flow == nil ? answers : answers.filter { $0.status != .notAsked }
        summary = Self.summarize(answers: reached, callbackRequested: tracker.callbackRequested, context: context)
            + (outcome.map { " Outcome: \($0)." } ?? "")
            + (menu.map { " " + DialoguePhrases.of(context.language).menuSummary($0) } ?? "")
            + (screener.map { " " + DialoguePhrases.of(context.language).screenerSummary($0) } ?? "")
            + (languagesSpoken.map { " " + DialoguePhrases.of(context.language).summarySwitchedLanguage
                .replacingOccurrences(of: "{languages}", with: $0.joined(separator: " → ")) } ?? "")
            + (openQuestions.isEmpty ? "" : " Open questions to answer: " + openQuestions.map { "\"\($0)\"" }.joined(separator: "; ") + ".")
    }

    /// A plain summary built from the answers (an LLM summary can replace it when configured).
    static func summarize(answers: [TaskTracker.Answer], callbackRequested: Bool = false, context: ConversationContext) -> String {
        let words = DialoguePhrases.of(context.language)
        let lines = answers.map { a -> String in
            switch a.status {
            case .answered: "\(a.question) → \(a.answerSummary ?? a.answerText ?? "answered")"
            case .refused: "\(a.question) → \(words.summaryRefused)"
            case .unclear: "\(a.question) → \(words.summaryUnclear)" + (a.answerText.map { " (\"\($0)\")" } ?? "")
            case .pending: "\(a.question) → \(words.summaryNoAnswer)"
            case .notAsked: "\(a.question) → \(words.summaryNotAsked)"
            }
        }
        let callback = callbackRequested ? " " + words.summaryCallback : ""
        return words.summaryOpening.replacingOccurrences(of: "{purpose}", with: context.purpose) + " " + lines.joined(separator: "; ") + "." + callback
    }
}
