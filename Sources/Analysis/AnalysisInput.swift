import Flows

/// What an analysis reads of an ended call: its purpose, transcript, answers, flow fields and outcome.
public struct AnalysisInput: Sendable, Equatable {
    public struct Line: Sendable, Equatable {
        /// `ai` or `customer`.
        public var speaker: String
        public var text: String
        public init(speaker: String, text: String) { self.speaker = speaker; self.text = text }
    }

    public struct Answer: Sendable, Equatable {
        public var id: String
        public var question: String
        /// answered, refused, unclear, pending, not_asked.
        public var status: String
        public var answer: String?
        public init(id: String, question: String, status: String, answer: String?) {
            self.id = id; self.question = question; self.status = status; self.answer = answer
        }
    }

    public var purpose: String
    public var transcript: [Line]
    public var answers: [Answer]
    public var fields: [String: FlowFieldValue]
    /// A flow call's end step outcome; nil otherwise.
    public var outcome: String?
    /// The flow's outcomes (the categories a flow call falls in), empty without a flow.
    public var flowOutcomes: [String]
    public var taskCompleted: Bool

    public init(purpose: String, transcript: [Line], answers: [Answer], fields: [String: FlowFieldValue] = [:], outcome: String? = nil,
                flowOutcomes: [String] = [], taskCompleted: Bool) {
        self.purpose = purpose
        self.transcript = transcript
        self.answers = answers
        self.fields = fields
        self.outcome = outcome
        self.flowOutcomes = flowOutcomes
        self.taskCompleted = taskCompleted
    }

    /// The categories the analysis picks from: the template's, else the flow's outcomes, else the defaults.
    public func categories(_ spec: AnalysisSpec) -> [String] {
        spec.categories ?? (flowOutcomes.isEmpty ? AnalysisSpec.defaultCategories : flowOutcomes + ["incomplete"])
    }
}
