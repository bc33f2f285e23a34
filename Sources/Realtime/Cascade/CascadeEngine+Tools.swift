import Tools

/// The operator's tools in a cascade turn: the request runs while, past a moment, the agent says
/// its waiting line, so the caller never hears dead air.
extension CascadeEngine {
    /// A tool the model called: only those it is offered (`ConversationContext.modelTools`) run.
    func callTool(named name: String, arguments: String) async -> ToolRunner.Outcome {
        guard let tool = context.modelTools.first(where: { $0.name == name }) else {
            let outcome = toolRunner?.unknown(name, arguments: arguments) ?? ToolRunner.unknownTool(name, arguments: arguments)
            await events.emit(.toolCalled(outcome.record))
            return outcome
        }
        return await runFlowTool(tool, arguments: arguments)
    }

    /// Runs `tool` — one the model called, or a flow's tool step the server runs itself.
    func runFlowTool(_ tool: ToolDefinition, arguments: String) async -> ToolRunner.Outcome {
        guard let runner = toolRunner else {
            let outcome = ToolRunner.unknownTool(tool.name, arguments: arguments)
            await events.emit(.toolCalled(outcome.record))
            return outcome
        }
        let outcome = await runner.call(tool, arguments: arguments) {
            let line = tool.speakWhileWaiting ?? ToolDefinition.defaultWaitingLine
            let item = self.nextItem()
            await self.speak(sentences: [line], item: item)
            await self.events.emit(.transcript(speaker: .ai, text: line, item: item))
            await self.events.emit(.audioDone(item: item))
        }
        await events.emit(.toolCalled(outcome.record))
        return outcome
    }
}
