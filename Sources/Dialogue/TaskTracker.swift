import Flows

/// Per-question progress of a call (seed 000 §5.3): shared by every engine.
public struct TaskTracker: Sendable, Equatable {
    public enum Status: String, Sendable, Codable, Equatable {
        case pending, answered, unclear, refused
        /// In results: a question the call never reached.
        case notAsked = "not_asked"
    }

    public struct Answer: Sendable, Equatable, Codable {
        public var questionID: String
        public var question: String
        public var status: Status
        public var answerText: String?
        public var answerSummary: String?
        public var confidence: Double
        /// Times the question was asked (an unclear answer is asked once more).
        public var timesAsked: Int

        public init(questionID: String, question: String, status: Status, answerText: String?, answerSummary: String?, confidence: Double, timesAsked: Int) {
            self.questionID = questionID
            self.question = question
            self.status = status
            self.answerText = answerText
            self.answerSummary = answerSummary
            self.confidence = confidence
            self.timesAsked = timesAsked
        }
    }

    public private(set) var answers: [Answer]
    /// The callee asked to be called another time (the local dialogue ends the call then).
    public var callbackRequested = false
    /// A call screener answered for the callee: how far the call got past it (nil: none met).
    public var screener: CallScreener.Passage?
    /// A phone menu answered the call: the keys pressed and where they led (nil: none met).
    public var menu: MenuPassage?
    /// Questions the caller asked that the knowledge base could not answer: passed on.
    public var openQuestions: [String] = []
    /// The languages the caller switched to, in order (`ScriptedDialogue.speaking`); empty: none.
    public var languagesSpoken: [String] = []
    /// The flow the call runs, with the path taken and the fields gathered; nil: plain questions.
    public var flow: FlowWalker?

    /// Questions `q1`, `q2`, … in order.
    public init(questions: [String]) {
        self.init(questions: questions, ids: questions.indices.map { "q\($0 + 1)" })
    }

    /// Questions with ids of their own (a flow's field names).
    public init(questions: [String], ids: [String]) {
        answers = zip(ids, questions).map { id, q in
            Answer(questionID: id, question: q, status: .pending, answerText: nil, answerSummary: nil, confidence: 0, timesAsked: 0)
        }
    }

    /// A flow's loop came back to a question: it is asked afresh.
    public mutating func reopen(_ index: Int) {
        guard answers.indices.contains(index) else { return }
        answers[index].status = .pending
        answers[index].timesAsked = 0
    }

    /// All questions answered (refusals end a call politely but do not complete its task).
    /// A flow's task is done when it reached an end step.
    public var isComplete: Bool { flow.map { $0.outcome != nil } ?? answers.allSatisfy { $0.status == .answered } }
    /// The next question never asked, other than `current` (re-asking is the dialogue's own step).
    public func nextQuestionIndex(after current: Int?) -> Int? {
        answers.indices.first { $0 != current && answers[$0].status == .pending && answers[$0].timesAsked == 0 }
    }

    public mutating func asked(_ index: Int) {
        guard answers.indices.contains(index) else { return }
        answers[index].timesAsked += 1
    }

    /// Takes back the askings beyond `counts` (each question's `timesAsked` before): the step
    /// that asked them was never said.
    mutating func unask(beyond counts: [Int]) {
        for index in answers.indices where index < counts.count { answers[index].timesAsked = min(answers[index].timesAsked, counts[index]) }
    }

    /// Records an update; unknown ids are ignored (a model may invent one).
    public mutating func update(questionID: String, status: Status, answerText: String?, summary: String?, confidence: Double) {
        guard let index = answers.firstIndex(where: { $0.questionID == questionID }) else { return }
        answers[index].status = status
        if let answerText { answers[index].answerText = answerText }
        if let summary { answers[index].answerSummary = summary }
        answers[index].confidence = min(1, max(0, confidence))
    }

    /// A value the caller turned down at its read-back: `unclear`, its summary gone — an operator
    /// must not read a rejected value as the answer — and what the caller said, if anything, kept.
    public mutating func reject(questionID: String, answerText: String?) {
        guard let index = answers.firstIndex(where: { $0.questionID == questionID }) else { return }
        answers[index].status = .unclear
        answers[index].answerSummary = nil
        if let answerText { answers[index].answerText = answerText }
        answers[index].confidence = 0.3
    }

    /// The answers as they go into the result: questions never reached are `not_asked`; a
    /// question asked but never answered (hang-up, silence) stays `pending`.
    public var finalAnswers: [Answer] {
        answers.map { a in
            var a = a
            if a.status == .pending, a.timesAsked == 0 { a.status = .notAsked }
            return a
        }
    }
}
