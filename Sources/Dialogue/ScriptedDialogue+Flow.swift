import Flows
import Tools

/// The local dialogue running a flow: the same asking, re-asking and refusals as a plain list of
/// questions, but what comes after an answer is the flow's next step — exactly as written, no
/// model involved.
extension ScriptedDialogue {
    /// After the current question is settled (answered, refused, or given up on): the flow's next
    /// stop, from the start when nothing was asked yet.
    mutating func nextInFlow(prefix: String) -> Step {
        guard var walker = tracker.flow else { return close(context.closing) }
        recordFields(into: &walker)
        let stop = flowStep.map { walker.next(after: $0) } ?? walker.begin()
        tracker.flow = walker
        return walk(prefix: prefix, to: stop)
    }

    /// What the dialogue says at `stop`; the `say` steps passed on the way come first.
    mutating func walk(prefix: String, to stop: FlowWalker.Stop?) -> Step {
        guard let stop, let flow = context.flow, let step = flow[stop.step] else { return close(context.closing) }
        flowStep = stop.step
        let lead = ([prefix] + stop.said.map(context.filled)).filter { !$0.isEmpty }
        /// `last` after the lead; a closing that thanks already drops the lead's "Thank you.".
        func spoken(_ last: String, closing: Bool = false) -> String {
            ((closing ? [Self.prefix(prefix, before: last)] + stop.said.map(context.filled) : lead) + [last]).filter { !$0.isEmpty }.joined(separator: " ")
        }
        switch stop {
        case .ask:
            guard let index = flow.asks.firstIndex(where: { $0.id == step.id }) else { return close(spoken(context.closing)) }
            FlowGuide.enter(stop, tracker: &tracker, context: context)   // asked (afresh, when a loop came back to it)
            current = index
            return .ask(text: spoken(question(index)), questionIndex: index)
        case .tool:
            return .runTool(text: lead.joined(separator: " "))
        case .transfer:
            return .transfer(text: spoken(context.filled(step.transfer ?? "")), reason: "the flow's step '\(step.id)'")
        case .end:
            flowStep = nil
            return close(spoken(step.end.map(context.filled) ?? context.closing, closing: true))
        }
    }

    /// The flow's tool step the dialogue stopped at: the tool and its arguments (nil: none, or
    /// the call has no such tool — `toolFinished` with `FlowToolStep.missing` then fails the step).
    public func pendingTool() -> (tool: ToolDefinition, arguments: String)? {
        guard let stop = tracker.flow?.stop, case .tool = stop else { return nil }
        return FlowToolStep.call(stop.step, context: context, fields: tracker.flow?.fields ?? [:])
    }

    /// The tool step ran: the flow goes on where its answer leads.
    public mutating func toolFinished(_ outcome: ToolRunner.Outcome) -> Step {
        guard let stop = tracker.flow?.stop else { return close(context.closing) }
        return walk(prefix: "", to: FlowToolStep.run(stop, tracker: &tracker, outcome: outcome, context: context))
    }

    /// The tracker's answers as the flow's fields: answers (the one asked and any said unprompted)
    /// and refusals; the question just given up on as unclear.
    private func recordFields(into walker: inout FlowWalker) {
        let kinds = context.flow?.fieldKinds ?? [:]
        for (index, answer) in tracker.answers.enumerated() {
            let kind = kinds[answer.questionID] ?? .freeText
            switch answer.status {
            case .answered: walker.record(answer.questionID, FlowFieldValue(kind: kind, status: .answered, answer: answer.answerSummary ?? answer.answerText))
            case .refused: walker.record(answer.questionID, FlowFieldValue(kind: kind, status: .refused))
            case .unclear: walker.record(answer.questionID, FlowFieldValue(kind: kind, status: .unclear))
            case .pending where index == current: walker.record(answer.questionID, FlowFieldValue(kind: kind, status: .unclear))
            default: break
            }
        }
    }
}
