import Foundation

extension Flow {
    /// Every problem at once, each naming its step: the shape of each step, steps named but not
    /// written, steps no path reaches, steps from which no path ends, conditions on fields not
    /// asked on every path before them, and loops without a bound.
    public func problems() -> [FlowProblem] {
        let shape = shapeProblems()
        // The graph and field checks need every step's exits to exist; past that, each names what
        // it finds whatever the others found, so one save shows every mistake.
        guard shape.isEmpty else { return shape }
        return reachabilityProblems() + loopProblems() + fieldProblems()
    }

    /// 1 to 64 letters, digits, `_` or `-`: step ids, field names and outcomes.
    static func isLabel(_ text: String) -> Bool {
        (1...64).contains(text.count) && text.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == "-" }
    }

    private func shapeProblems() -> [FlowProblem] {
        var problems: [FlowProblem] = []
        func problem(_ step: String?, _ key: String, _ message: String) { problems.append(FlowProblem(step: step, key: key, message: message)) }
        if steps.isEmpty || steps.count > Self.maximumSteps { problem(nil, "steps", "must hold 1 to \(Self.maximumSteps) steps") }
        if asks.count > Self.maximumAsks { problem(nil, "steps", "may ask at most \(Self.maximumAsks) questions") }
        var seen: Set<String> = []
        var askedBy: [String: String] = [:]
        let ids = Set(steps.map(\.id))
        if self[start] == nil { problem(nil, "start", "names no step ('\(start)')") }
        // Before the first question the agent is still greeting: a tool there would keep the caller
        // waiting before a word, and a model engine has no turn to run it in.
        let beforeFirstAsk = Self.reach(from: [start]) { id in self[id].map { $0.ask == nil ? $0.exits.map(\.step) : [] } ?? [] }
        if let early = steps.first(where: { $0.tool != nil && beforeFirstAsk.contains($0.id) }) {
            problem(early.id == start ? nil : early.id, early.id == start ? "start" : "tool",
                    "a flow begins by speaking to the callee: put the tool step after the first ask")
        }
        for step in steps {
            let id = step.id
            if !Self.isLabel(id) { problem(id, "id", "must be 1 to 64 letters, digits, '_' or '-'") }
            if !seen.insert(id).inserted { problem(id, "id", "is used by two steps") }
            let keys = step.actionKeys
            if keys.count != 1 {
                problem(id, "step", keys.isEmpty ? "has no action: give it one of ask, say, branch, tool, transfer, end"
                                                 : "has several actions (\(keys.joined(separator: ", "))): a step does one thing")
                continue
            }
            for (key, text) in [("ask", step.ask), ("say", step.say), ("transfer", step.transfer), ("end", step.end)] {
                if let text, text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || text.count > Self.maximumTextLength {
                    problem(id, key, "must be 1 to \(Self.maximumTextLength) characters")
                }
            }
            switch keys[0] {
            case "ask":
                if let field = step.field {
                    if !Self.isLabel(field) { problem(id, "field", "must be 1 to 64 letters, digits, '_' or '-'") }
                    if let other = askedBy[field] { problem(id, "field", "'\(field)' is asked by step '\(other)' already: a field is asked in one place") }
                    askedBy[field] = askedBy[field] ?? id
                } else {
                    problem(id, "field", "is required: the field the answer is stored in")
                }
                if step.kind == nil { problem(id, "kind", "is required: one of \(FlowFieldKind.allCases.map(\.rawValue).joined(separator: ", "))") }
                if step.kind == .choice, (step.choices ?? []).filter({ !$0.trimmingCharacters(in: .whitespaces).isEmpty }).count < 2 {
                    problem(id, "choices", "a choice needs at least two options")
                }
                if step.next == nil { problem(id, "next", "is required: the step after the answer") }
            case "say":
                if step.next == nil { problem(id, "next", "is required: the step after saying it") }
            case "branch":
                if step.default == nil { problem(id, "default", "is required: the step when no case holds") }
                if step.branch?.isEmpty ?? true { problem(id, "branch", "needs at least one case") }
                for (i, condition) in (step.branch ?? []).enumerated() where condition.testCount != 1 {
                    problem(id, "branch.\(i)", "states \(condition.testCount) tests: give exactly one of equals, one_of, is, or min/max")
                }
            case "tool":
                if step.next == nil { problem(id, "next", "is required: the step after the tool answered") }
                for field in (step.results ?? [:]).keys.sorted() {
                    if !Self.isLabel(field) { problem(id, "results.\(field)", "a field is 1 to 64 letters, digits, '_' or '-'") }
                    else if let other = asks.first(where: { $0.field == field }) { problem(id, "results.\(field)", "'\(field)' is asked by step '\(other.id)': a field is filled in one place") }
                }
            case "transfer":
                if step.next == nil { problem(id, "next", "is required: where the flow goes on when nobody takes the call") }
            default:   // end
                if !Self.isLabel(step.outcome ?? "") { problem(id, "outcome", "is required: a label of 1 to 64 letters, digits, '_' or '-'") }
                if step.next != nil { problem(id, "next", "an end step ends the call: it has no next step") }
            }
            if (step.maxVisits == nil) != (step.afterLimit == nil) {
                problem(id, step.maxVisits == nil ? "max_visits" : "after_limit", "max_visits and after_limit go together")
            }
            if let visits = step.maxVisits, !(1...20).contains(visits) { problem(id, "max_visits", "must be between 1 and 20") }
            for exit in step.exits where !ids.contains(exit.step) { problem(id, exit.key, "names no step ('\(exit.step)')") }
        }
        return problems
    }

    /// Steps that no path from `start` reaches, and steps from which no path reaches an end.
    private func reachabilityProblems() -> [FlowProblem] {
        var problems: [FlowProblem] = []
        let forward = Self.reach(from: [start]) { self[$0]?.exits.map(\.step) ?? [] }
        let predecessors = Dictionary(grouping: steps.flatMap { step in step.exits.map { ($0.step, step.id) } }, by: \.0).mapValues { $0.map(\.1) }
        let ends = steps.filter { $0.outcome != nil }.map(\.id)
        let ending = Self.reach(from: ends) { predecessors[$0] ?? [] }
        for step in steps {
            if !forward.contains(step.id) { problems.append(FlowProblem(step: step.id, key: "id", message: "no path from the start reaches this step")) }
            else if !ending.contains(step.id) { problems.append(FlowProblem(step: step.id, key: "id", message: "no path from this step reaches an end step")) }
        }
        return problems
    }

    /// Every loop must pass a step with `max_visits`, whose `after_limit` leaves the loop.
    private func loopProblems() -> [FlowProblem] {
        var problems: [FlowProblem] = []
        for component in stronglyConnectedComponents() {
            let looping = component.count > 1 || (self[component[0]]?.exits.contains { $0.step == component[0] } ?? false)
            guard looping else { continue }
            let members = Set(component)
            let bounded = component.compactMap { self[$0] }.filter { $0.maxVisits != nil }
            let cycle = steps.map(\.id).filter(members.contains).joined(separator: " → ")
            if bounded.isEmpty {
                problems.append(FlowProblem(step: steps.map(\.id).first(where: members.contains), key: "next",
                                            message: "the loop \(cycle) has no bound: give one of its steps max_visits and after_limit"))
            } else if bounded.allSatisfy({ members.contains($0.afterLimit ?? "") }) {
                problems.append(FlowProblem(step: bounded[0].id, key: "after_limit", message: "must lead out of the loop \(cycle)"))
            }
        }
        return problems
    }

    /// A condition may test a field only when every path to its step asks the field first, and as
    /// the field's kind allows.
    private func fieldProblems() -> [FlowProblem] {
        var problems: [FlowProblem] = []
        let kinds = fieldKinds
        let fromTools = toolFields
        let asked = askedOnEveryPath()
        for step in steps {
            // A tool's arguments name fields that must be known when it runs.
            for (argument, template) in (step.arguments ?? [:]).sorted(by: { $0.key < $1.key }) {
                for name in Self.placeholders(in: template) where !(asked[step.id] ?? []).contains(name) {
                    problems.append(FlowProblem(step: step.id, key: "arguments.\(argument)",
                                                message: kinds[name] == nil && !fromTools.contains(name) ? "no step fills '\(name)'" : "'\(name)' is not filled on every path to this step"))
                }
            }
            for (i, condition) in (step.branch ?? []).enumerated() {
                func problem(_ message: String) { problems.append(FlowProblem(step: step.id, key: "branch.\(i).field", message: message)) }
                let filled = kinds[condition.field] != nil || fromTools.contains(condition.field)
                guard filled else { problem("no step asks '\(condition.field)'"); continue }
                if !(asked[step.id] ?? []).contains(condition.field) {
                    problem("'\(condition.field)' is not asked on every path to this step")
                }
                // A tool's field is whatever its answer held: any test applies.
                guard let kind = kinds[condition.field] else { continue }
                if (condition.min != nil || condition.max != nil), kind != .number { problem("min and max test numbers; '\(condition.field)' is \(kind.rawValue)") }
                if condition.is == .yes || condition.is == .no, kind != .yesNo { problem("is: yes/no tests a yes_no field; '\(condition.field)' is \(kind.rawValue)") }
                let values = (condition.equals.map { [$0] } ?? []) + (condition.oneOf ?? [])
                if kind == .yesNo, let bad = values.first(where: { !["yes", "no"].contains($0.lowercased()) }) { problem("'\(condition.field)' is yes or no, not '\(bad)'") }
                if kind == .choice, let choices = self.steps.first(where: { $0.field == condition.field })?.choices,
                   let bad = values.first(where: { value in !choices.contains { FlowCondition.same($0, value) } }) {
                    problem("'\(bad)' is not one of the choices of '\(condition.field)' (\(choices.joined(separator: ", ")))")
                }
            }
        }
        return problems
    }

    /// For each step, the fields every path from the start has asked before it (a must-analysis:
    /// the intersection over the step's predecessors, iterated to a fixed point).
    func askedOnEveryPath() -> [String: Set<String>] {
        let all = Set(asks.compactMap(\.field)).union(toolFields)
        var before: [String: Set<String>] = Dictionary(uniqueKeysWithValues: steps.map { ($0.id, $0.id == start ? [] : all) })
        var changed = true
        while changed {
            changed = false
            for step in steps {
                let known = before[step.id] ?? []
                var after = step.ask != nil ? known.union(step.field.map { [$0] } ?? []) : known
                if let results = step.results { after.formUnion(results.keys) }
                for exit in step.exits {
                    // Past the visit limit the step itself did not run.
                    let carried = exit.key == "after_limit" ? known : after
                    let merged = (before[exit.step] ?? []).intersection(carried)
                    if merged != before[exit.step] { before[exit.step] = merged; changed = true }
                }
            }
        }
        return before
    }

    /// The `{field}` names in a tool argument.
    static func placeholders(in text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    static func reach(from roots: [String], _ neighbours: (String) -> [String]) -> Set<String> {
        var seen = Set(roots)
        var stack = roots
        while let id = stack.popLast() {
            for next in neighbours(id) where seen.insert(next).inserted { stack.append(next) }
        }
        return seen
    }

    /// Tarjan's algorithm over the steps and their exits.
    func stronglyConnectedComponents() -> [[String]] {
        var index: [String: Int] = [:], low: [String: Int] = [:], onStack: Set<String> = [], stack: [String] = []
        var components: [[String]] = []
        var counter = 0
        func visit(_ id: String) {
            index[id] = counter; low[id] = counter; counter += 1
            stack.append(id); onStack.insert(id)
            for next in self[id]?.exits.map(\.step) ?? [] {
                if index[next] == nil { visit(next); low[id] = Swift.min(low[id]!, low[next]!) }
                else if onStack.contains(next) { low[id] = Swift.min(low[id]!, index[next]!) }
            }
            if low[id] == index[id] {
                var component: [String] = []
                while let top = stack.popLast() { onStack.remove(top); component.append(top); if top == id { break } }
                components.append(component)
            }
        }
        for step in steps where index[step.id] == nil { visit(step.id) }
        return components
    }
}
