/// Runs a validated flow: from a step, through `say` and `branch` steps, to the next step that
/// waits for the caller (`ask`), hands the call over (`transfer`) or ends it. Records the path
/// taken and the fields answered; engines say what it returns and report answers back.
public struct FlowWalker: Sendable, Equatable {
    public let flow: Flow
    /// Every step the call went through, in order (a step in a loop appears once per visit).
    public private(set) var path: [String] = []
    public private(set) var fields: [String: FlowFieldValue] = [:]
    /// The end step's outcome, once the flow ended.
    public private(set) var outcome: String?
    /// Where the flow stands: the last stop returned.
    public private(set) var stop: Stop?
    private var visits: [String: Int] = [:]

    /// Where the flow stopped, with what the `say` steps on the way said.
    public enum Stop: Sendable, Equatable {
        case ask(step: String, said: [String])
        /// The server calls the step's tool, then `toolFinished`.
        case tool(step: String, said: [String])
        case transfer(step: String, said: [String])
        case end(step: String, said: [String])

        public var step: String {
            switch self { case .ask(let step, _), .tool(let step, _), .transfer(let step, _), .end(let step, _): step }
        }
        public var said: [String] {
            switch self { case .ask(_, let said), .tool(_, let said), .transfer(_, let said), .end(_, let said): said }
        }
    }

    public init(flow: Flow) {
        self.flow = flow
    }

    /// The first stop.
    public mutating func begin() -> Stop { arrive(walk(from: flow.start)) }

    /// Records what the caller gave for `field` (an answer to its step, or said unprompted).
    public mutating func record(_ field: String, _ value: FlowFieldValue) {
        fields[field] = value
    }

    /// The tool step `id` answered (its `results` read into `fields`) or failed: the next stop, at
    /// `on_error` when it failed and the step says where.
    public mutating func toolFinished(_ id: String, fields: [String: FlowFieldValue], failed: Bool) -> Stop {
        for (field, value) in fields { self.fields[field] = value }
        guard let step = flow[id], let next = failed ? step.onError ?? step.next : step.next else { return arrive(end(at: id, said: [])) }
        return arrive(walk(from: next))
    }

    /// The stop after the step `id` (an ask answered, refused or given up on; a transfer nobody took).
    public mutating func next(after id: String) -> Stop {
        guard let next = flow[id]?.next else { return arrive(end(at: id, said: [])) }
        return arrive(walk(from: next))
    }

    private mutating func walk(from first: String) -> Stop {
        var id = first
        var said: [String] = []
        // Validation bounds every loop; this bounds a flow that skipped it.
        for _ in 0..<(flow.steps.count * 21 + 1) {
            guard let step = flow[id] else { break }
            let visit = visits[id, default: 0] + 1
            visits[id] = visit
            if let limit = step.maxVisits, let after = step.afterLimit, visit > limit {
                id = after
                continue
            }
            path.append(id)
            switch step.action {
            case .say(let text, let next):
                said.append(text)
                id = next
            case .branch(let cases, let otherwise):
                id = cases.first { $0.holds(in: fields) }?.next ?? otherwise
            case .ask(_, let field, _, let next):
                // Answered unprompted earlier ("yes, and tomorrow at two"): not asked again — on
                // its first visit; a loop back to it asks anew.
                if visit == 1, fields[field]?.status == .answered { id = next; continue }
                return .ask(step: id, said: said)
            case .tool:
                return .tool(step: id, said: said)
            case .transfer:
                return .transfer(step: id, said: said)
            case .end(_, let outcome):
                self.outcome = outcome
                return .end(step: id, said: said)
            case nil:
                return end(at: id, said: said)
            }
        }
        return end(at: id, said: said)
    }

    private mutating func arrive(_ stop: Stop) -> Stop {
        self.stop = stop
        return stop
    }

    /// A flow that cannot go on (not validated, or a loop past its guard) ends without an outcome.
    private mutating func end(at id: String, said: [String]) -> Stop {
        .end(step: id, said: said)
    }
}
