/// One thing wrong with a flow, naming the step (nil: the flow as a whole) and the key at fault.
public struct FlowProblem: Sendable, Equatable, CustomStringConvertible {
    public var step: String?
    /// Where in the step or flow: `next`, `branch.0.field`, `start`, …
    public var key: String
    public var message: String

    public init(step: String?, key: String, message: String) {
        self.step = step
        self.key = key
        self.message = message
    }

    /// `flow.steps.<id>.<key>` or `flow.<key>`: the name an API error gives the problem.
    public var path: String { step.map { "flow.steps.\($0).\(key)" } ?? "flow.\(key)" }

    public var description: String { "\(path): \(message)" }
}
