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

    public init(answer: JSONValue, error: String? = nil) {
        self.answer = answer
        self.error = error
    }
}
