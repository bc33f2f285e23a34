/// One step of a flow, as the operator wrote it: exactly one of `ask`, `say`, `branch`, `tool`,
/// `transfer` or `end`, with the keys that action takes. Kept as written (every key optional) so
/// that a malformed step is reported by name instead of failing to decode.
public struct FlowStep: Codable, Sendable, Equatable {
    public var id: String
    /// A question; its answer fills `field`, of `kind`.
    public var ask: String?
    public var field: String?
    public var kind: FlowFieldKind?
    /// The options a `choice` field takes.
    public var choices: [String]?
    /// Said, then the flow goes on at `next` without waiting.
    public var say: String?
    /// The first case that holds names the next step; none: `default`.
    public var branch: [FlowCondition]?
    public var `default`: String?
    /// One of the template's tools, called by the server (not the model) with `arguments` — text
    /// where `{field}` is a field's answer, typed when it is the whole value — whose JSON answer
    /// fills fields (`results`: field → key of the answer); the flow goes on at `next`, or at
    /// `on_error` when the tool failed.
    public var tool: String?
    public var arguments: [String: String]?
    public var results: [String: String]?
    public var onError: String?
    /// Said before the caller is handed to a person; when nobody takes the call the flow goes on at `next`.
    public var transfer: String?
    /// Said last (nil: the call's closing), the call ends with `outcome`.
    public var end: String?
    public var outcome: String?
    public var next: String?
    /// A step in a loop says how often it may run; the time after that the flow goes to
    /// `after_limit` instead.
    public var maxVisits: Int?
    public var afterLimit: String?

    enum CodingKeys: String, CodingKey {
        case id, ask, field, kind, choices, say, branch, `default`, tool, arguments, results, transfer, end, outcome, next
        case maxVisits = "max_visits", afterLimit = "after_limit", onError = "on_error"
    }

    public init(id: String, ask: String? = nil, field: String? = nil, kind: FlowFieldKind? = nil, choices: [String]? = nil,
                say: String? = nil, branch: [FlowCondition]? = nil, default: String? = nil, tool: String? = nil, arguments: [String: String]? = nil,
                results: [String: String]? = nil, onError: String? = nil, transfer: String? = nil,
                end: String? = nil, outcome: String? = nil, next: String? = nil, maxVisits: Int? = nil, afterLimit: String? = nil) {
        self.id = id
        self.ask = ask
        self.field = field
        self.kind = kind
        self.choices = choices
        self.say = say
        self.branch = branch
        self.default = `default`
        self.tool = tool
        self.arguments = arguments
        self.results = results
        self.onError = onError
        self.transfer = transfer
        self.end = end
        self.outcome = outcome
        self.next = next
        self.maxVisits = maxVisits
        self.afterLimit = afterLimit
    }

    /// What the step does, once validated (`Flow.problems()` names a step with none or several).
    public enum Action: Sendable, Equatable {
        case ask(question: String, field: String, kind: FlowFieldKind, next: String)
        case say(text: String, next: String)
        case branch(cases: [FlowCondition], otherwise: String)
        case tool(name: String, next: String)
        case transfer(text: String, next: String)
        case end(text: String?, outcome: String)
    }

    /// The keys naming an action that this step has.
    var actionKeys: [String] {
        [("ask", ask != nil), ("say", say != nil), ("branch", branch != nil), ("tool", tool != nil), ("transfer", transfer != nil),
         ("end", end != nil || outcome != nil)]
            .filter(\.1).map(\.0)
    }

    public var action: Action? {
        guard actionKeys.count == 1 else { return nil }
        if let ask, let field, let kind, let next { return .ask(question: ask, field: field, kind: kind, next: next) }
        if let say, let next { return .say(text: say, next: next) }
        if let branch, let otherwise = `default` { return .branch(cases: branch, otherwise: otherwise) }
        if let tool, let next { return .tool(name: tool, next: next) }
        if let transfer, let next { return .transfer(text: transfer, next: next) }
        if let outcome { return .end(text: end, outcome: outcome) }
        return nil
    }

    /// Every step this one can lead to, with the edge's name.
    var exits: [(key: String, step: String)] {
        var exits: [(String, String)] = []
        if let next { exits.append(("next", next)) }
        for (i, condition) in (branch ?? []).enumerated() { exits.append(("branch.\(i).next", condition.next)) }
        if let otherwise = `default` { exits.append(("default", otherwise)) }
        if let onError { exits.append(("on_error", onError)) }
        if let afterLimit { exits.append(("after_limit", afterLimit)) }
        return exits
    }
}
