/// A conversation that branches (seed 004's graph scenarios): named steps, each asking, saying,
/// branching on what was answered, handing the caller to a person or ending with an outcome.
/// Written by the operator on a template as JSON (or YAML); `problems()` checks it whole before
/// it is saved, and `FlowWalker` runs it.
public struct Flow: Codable, Sendable, Equatable {
    /// The first step's id.
    public var start: String
    /// In the order written; ids are unique once validated.
    public var steps: [FlowStep]

    public init(start: String, steps: [FlowStep]) {
        self.start = start
        self.steps = steps
    }

    public static let maximumSteps = 100
    public static let maximumAsks = 20
    public static let maximumTextLength = 1000

    public subscript(id: String) -> FlowStep? { steps.first { $0.id == id } }

    /// The steps that ask, in the order written: a call's questions, one per field.
    public var asks: [FlowStep] { steps.filter { $0.ask != nil } }

    /// The fields a `tool` step fills from its answer (their kind is the answer's).
    public var toolFields: Set<String> { Set(steps.flatMap { $0.results?.keys.map { $0 } ?? [] }) }

    /// The kind of each field an `ask` step fills.
    public var fieldKinds: [String: FlowFieldKind] {
        var kinds: [String: FlowFieldKind] = [:]
        for step in asks {
            if let field = step.field, let kind = step.kind { kinds[field] = kinds[field] ?? kind }
        }
        return kinds
    }
}
