/// A tool the server answers itself, such as the knowledge search: nothing leaves the machine,
/// and its record and `/metrics` count are kept like any other tool's.
public protocol LocalTool: Sendable {
    /// Runs with arguments already checked against the tool's schema.
    func run(_ arguments: JSONValue) async -> LocalToolAnswer
}

public struct LocalToolAnswer: Sendable, Equatable {
    public var answer: JSONValue
    /// What went wrong, when something did (the answer then says so to the model too).
    public var error: String?
    /// A question the tool could not answer for sure (`search_knowledge` found nothing, or only
    /// weak matches the model may guess from): the call keeps it for the operator, like a question
    /// the local engine passes on.
    public var passedOn: String?

    public init(answer: JSONValue, error: String? = nil, passedOn: String? = nil) {
        self.answer = answer
        self.error = error
        self.passedOn = passedOn
    }
}
