import Logging

/// An engine whose model reports task state (the `update_task_state` tool or a `[TASK_STATE]`
/// tag): both LLM engines apply a report the same way, through this.
protocol TaskStateReporting: ConversationEngine {
    var logger: Logger { get }
    var context: ConversationContext { get }
    /// Runs `body` on the engine's tracker, under the engine's lock.
    func withTracker<R>(_ body: (inout TaskTracker) -> R) -> R
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
        let (result, tracker) = withTracker { t in (FlowGuide.advance(arguments, tracker: &t, context: context), t) }
        switch result {
        case .success(let next):
            await events.emit(.taskState(tracker))
            return (FlowGuide.output(next, context: context), PromptBuilder.instructions(for: context, flowStep: next))
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
