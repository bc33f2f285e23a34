import Dialogue
import Tools
import Logging

/// An engine whose model reports task state (the `update_task_state` tool or a `[TASK_STATE]`
/// tag): both LLM engines apply a report the same way, through this.
protocol TaskStateReporting: ConversationEngine {
    var logger: Logger { get }
    var context: ConversationContext { get }
    /// Runs `body` on the engine's tracker, under the engine's lock.
    func withTracker<R>(_ body: (inout TaskTracker) -> R) -> R
    /// Runs one of the call's tools for a flow's tool step (recorded like the model's calls).
    func runFlowTool(_ tool: ToolDefinition, arguments: String) async -> ToolRunner.Outcome
}

extension TaskStateReporting {
    /// Applies one report; the updated tracker goes out as a `taskState` event, a report that
    /// does not parse is logged and ignored.
    func applyTaskState(arguments: String) async {
        let tracker = withTracker { tracker -> TaskTracker? in tracker.apply(report: arguments) ? tracker : nil }
        guard let tracker else {
            logger.warning("task-state report ignored", metadata: ["arguments": "\(arguments)"])
            return
        }
        await events.emit(.taskState(tracker))
    }

    /// The first step of the call's flow, entered; the instructions for it (nil without a flow).
    func beginFlow() -> String? {
        guard context.flow != nil else { return nil }
        let stop = withTracker { FlowGuide.begin(tracker: &$0, context: context) }
        return PromptBuilder.instructions(for: context, flowStep: stop)
    }

    /// The model called `next_step`: what it hears back, and the instructions for the new step
    /// when the flow moved (nil: it stays, told why).
    func takeFlowStep(arguments: String) async -> (output: String, instructions: String?) {
        let result = withTracker { t in FlowGuide.advance(arguments, tracker: &t, context: context) }
        switch result {
        case .success(var next):
            // Tool steps run here, by the server, until the flow stops where the model has to act.
            var said: [String] = []
            while case .tool = next {
                said += next.said
                let stop = next
                let call = withTracker { t in FlowToolStep.call(stop.step, context: context, fields: t.flow?.fields ?? [:]) }
                let outcome = if let call { await runFlowTool(call.tool, arguments: call.arguments) } else { FlowToolStep.missing(stop, context: context) }
                guard let after = withTracker({ FlowToolStep.run(stop, tracker: &$0, outcome: outcome, context: context) }) else { break }
                next = after
            }
            await events.emit(.taskState(withTracker { $0 }))
            return (FlowGuide.output(next, context: context, saidBefore: said), PromptBuilder.instructions(for: context, flowStep: next))
        case .failure(let refusal):
            logger.info("next_step refused", metadata: ["reason": "\(refusal.message)"])
            return (refusal.json, nil)
        }
    }

    /// A transfer reached nobody: in a flow that asked for it, the next step's instructions
    /// (to go with the transfer's result) and the new prompt; nil otherwise.
    func flowAfterFailedTransfer() -> (step: String, instructions: String)? {
        guard let next = withTracker({ FlowGuide.transferFailed(tracker: &$0, context: context) }) else { return nil }
        return (FlowGuide.step(next, in: context), PromptBuilder.instructions(for: context, flowStep: next))
    }
}
