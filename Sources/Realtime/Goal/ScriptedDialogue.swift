import Foundation

/// The local engine's conversation: greeting, one question at a time, an unclear answer asked
/// once more, thanks and goodbye — the goal-oriented rules of seed 000 without a language model.
public struct ScriptedDialogue: Sendable {
    public enum Step: Sendable, Equatable {
        /// Say this and wait for the caller.
        case ask(text: String, questionIndex: Int)
        /// Say this, then end the call.
        case close(text: String)
    }

    public private(set) var tracker: TaskTracker
    public let context: ConversationContext
    private(set) var current: Int?
    private(set) var turns = 0

    public init(context: ConversationContext) {
        self.context = context
        self.tracker = TaskTracker(questions: context.questions)
    }

    /// The opening: greeting and the first question.
    public mutating func start() -> Step {
        next(prefix: context.greeting)
    }

    /// The caller answered the current question.
    public mutating func caller(said reply: String) -> Step {
        turns += 1
        guard let index = current else { return .close(text: context.closing) }
        let result = AnswerClassifier.classify(reply)
        tracker.update(questionID: tracker.answers[index].questionID, status: result.status,
                       answerText: reply.isEmpty ? nil : reply, summary: result.summary, confidence: result.confidence)
        if result.status == .refused {
            // Seed 000: when the callee refuses, apologise and end politely.
            current = nil
            return .close(text: "I understand, I'm sorry to have bothered you. " + context.closing)
        }
        if turns >= context.maxTurns { current = nil; return .close(text: context.closing) }
        if result.status == .unclear, tracker.answers[index].timesAsked < 2 {
            tracker.asked(index)
            return .ask(text: "Sorry, I didn't quite get that. " + tracker.answers[index].question, questionIndex: index)
        }
        return next(prefix: result.status == .answered ? "Thank you." : "")
    }

    private mutating func next(prefix: String) -> Step {
        guard let index = tracker.nextQuestionIndex else {
            current = nil
            return .close(text: [prefix, context.closing].filter { !$0.isEmpty }.joined(separator: " "))
        }
        current = index
        tracker.asked(index)
        return .ask(text: [prefix, tracker.answers[index].question].filter { !$0.isEmpty }.joined(separator: " "), questionIndex: index)
    }
}
