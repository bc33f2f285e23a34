import Tools

/// The operator's tools in a cascade turn: the request runs while, past a moment, the agent says
/// its waiting line, so the caller never hears dead air.
extension CascadeEngine {
    func callTool(named name: String, arguments: String) async -> ToolRunner.Outcome {
        guard let runner = toolRunner, let tool = context.conversationTools.first(where: { $0.name == name }) else {
            let outcome = toolRunner?.unknown(name, arguments: arguments) ?? ToolRunner.unknownTool(name, arguments: arguments)
            await events.emit(.toolCalled(outcome.record))
            return outcome
        }
        let outcome = await withTaskGroup(of: ToolRunner.Outcome?.self) { group -> ToolRunner.Outcome in
            group.addTask { await runner.call(tool, arguments: arguments) }
            group.addTask {
                try? await Task.sleep(for: ToolDefinition.waitBeforeSpeaking)
                return nil
            }
            var finished: ToolRunner.Outcome?
            while let next = await group.next() {
                if let next {
                    finished = next
                    group.cancelAll()   // the waiting line is not needed (or has been said)
                } else if !Task.isCancelled {
                    let line = tool.speakWhileWaiting ?? ToolDefinition.defaultWaitingLine
                    let item = nextItem()
                    await speak(sentences: [line], item: item)
                    await events.emit(.transcript(speaker: .ai, text: line, item: item))
                    await events.emit(.audioDone(item: item))
                }
            }
            return finished ?? runner.unknown(name, arguments: arguments)
        }
        await events.emit(.toolCalled(outcome.record))
        return outcome
    }
}
