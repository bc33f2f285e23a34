import Logging

/// An engine whose model reports task state (the `update_task_state` tool or a `[TASK_STATE]`
/// tag): both LLM engines apply a report the same way, through this.
protocol TaskStateReporting: ConversationEngine {
    var logger: Logger { get }
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
}
