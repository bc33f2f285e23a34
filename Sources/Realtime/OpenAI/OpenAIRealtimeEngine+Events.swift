import Dialogue
import Foundation
import HummingbirdWSClient
import Pipeline
import Tools

/// What the engine does with each server event.
extension OpenAIRealtimeEngine {
    func handle(_ text: String) async {
        let event: RealtimeServerEvent
        do { event = try RealtimeServerEvent.decode(text) } catch {
            logger.warning("unreadable realtime event", metadata: ["bytes": "\(text.utf8.count)"])
            return
        }
        switch event {
        case .audioDelta(let item, let bytes):
            let drop = state.withLock { s -> Bool in
                s.generatedBytes[item, default: 0] += bytes.count
                s.lastAssistantItem = item
                return s.interrupted.contains(item)
            }
            meter.add { $0.realtimeAudioSeconds += Double(bytes.count) / 8000 }   // μ-law: 8000 bytes a second
            if !drop { await events.emit(.audioBytes(item: item, bytes: bytes)) }
        case .audioDone(let item):
            if !state.withLock({ $0.interrupted.contains(item) }) { await events.emit(.audioDone(item: item)) }
        case .assistantTranscript(let item, let text):
            // Models without tools report in the text; that part is never spoken nor shown.
            let (spoken, reports) = TaskStateTag.extract(from: text)
            for report in reports { await applyTaskState(arguments: report) }
            let line = spoken.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty else { return }
            let turns = state.withLock { s -> Int in
                s.history.append((.ai, line))
                s.aiTurns += 1
                return s.aiTurns
            }
            await events.emit(.transcript(speaker: .ai, text: line, item: item))
            if turns >= context.maxTurns, state.withLock({ $0.closingReason == nil }) { await close(reason: "max_turns") }
        case .callerTranscript(let item, let text):
            let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
            let overlap = await judgeOverlap(item, words: line)
            if let overlap, overlap != .interruption { return }
            if !line.isEmpty {
                state.withLock { $0.history.append((.customer, line)) }
                await events.emit(.transcript(speaker: .customer, text: line, item: nil))
            }
            if overlap == .interruption { await takeTurnOverAgent() }
        case .callerTranscriptFailed(let item):
            if await judgeOverlap(item, words: nil) == .interruption { await takeTurnOverAgent() }
        case .speechStarted(let item):
            speechStarted(item)
            events.sendUrgent(.speechStarted)   // the session cuts at once only if it does not judge overlaps
        case .committed(let item):
            await committed(item)
        case .responseCreated:
            state.withLock { $0.overlap.responseActive = true }
        case .responseDone(let status, let calls):
            state.withLock { $0.overlap.responseActive = false }
            await responseDone(status: status, calls: calls)
        case .error(let type, let code, let message):
            // Most errors leave the session usable; authentication and an expired session do not.
            let fatal = ["authentication_error", "permission_error"].contains(type) || ["session_expired", "invalid_api_key", "insufficient_quota"].contains(code ?? "")
            logger.warning("realtime error", metadata: ["type": "\(type)", "code": "\(code ?? "")", "message": "\(message)"])
            events.sendUrgent(.error(message: "\(type): \(message)", fatal: fatal))
            if fatal { state.withLock { $0.ended = true } }
        case .sessionCreated, .sessionUpdated, .other:
            break
        }
    }

    /// Tools run only for a completed response (an interrupted one may carry half a call).
    func responseDone(status: String, calls: [RealtimeServerEvent.FunctionCall]) async {
        let (closing, lastItem, writer, toolCalls) = state.withLock { s in
            s.waitingLine?.finish()
            s.waitingLine = nil
            return (s.closingReason, s.lastAssistantItem, s.writer, s.toolCalls)
        }
        if let closing {
            state.withLock { $0.ended = true }
            await events.emit(.endCall(reason: closing, afterItem: lastItem))
            return
        }
        guard status == "completed", !calls.isEmpty else { return }
        var continueTalking = false
        var toolQueued = false
        for call in calls {
            switch call.name {
            case "update_task_state":
                await applyTaskState(arguments: call.arguments)
                try? await writer?.write(.text(RealtimeClientEvent.functionOutput(callID: call.callID, output: #"{"ok":true}"#)))
                continueTalking = true
            case FlowGuide.toolName:
                // The flow moves (or the model is told why not); the session's prompt now shows the new step.
                let (output, instructions) = await takeFlowStep(arguments: call.arguments)
                if let instructions {
                    state.withLock { $0.instructions = instructions }
                    try? await writer?.write(.text(RealtimeClientEvent.instructionsUpdate(instructions)))
                }
                try? await writer?.write(.text(RealtimeClientEvent.functionOutput(callID: call.callID, output: output)))
                continueTalking = true
            case "end_call":
                let reason = ((try? JSONSerialization.jsonObject(with: Data(call.arguments.utf8))) as? [String: Any])?["reason"] as? String
                state.withLock { $0.ended = true }
                await events.emit(.endCall(reason: reason ?? "conversation finished", afterItem: lastItem))
                return
            case PromptBuilder.pressKeysTool:
                // Pressed on the line; no response is asked for: the model waits for the menu or a person.
                let keys = PromptBuilder.keys(inPressKeysArguments: call.arguments)
                if let keys { await events.emit(.sendKeys(keys)) }
                try? await writer?.write(.text(RealtimeClientEvent.functionOutput(callID: call.callID,
                                                                                  output: PromptBuilder.pressKeysOutput(keys))))
                if keys == nil { continueTalking = true }
            case "transfer_call":
                let reason = ((try? JSONSerialization.jsonObject(with: Data(call.arguments.utf8))) as? [String: Any])?["reason"] as? String
                state.withLock { $0.transferCallID = call.callID }
                await events.emit(.transfer(reason: reason ?? "the caller asked for a person", afterItem: lastItem))
                return
            default:
                if context.modelTools.contains(where: { $0.name == call.name }), let toolCalls {
                    toolCalls.yield(call)   // runTool answers it and asks for the reply
                    toolQueued = true
                } else {
                    let outcome = toolRunner?.unknown(call.name, arguments: call.arguments) ?? ToolRunner.unknownTool(call.name, arguments: call.arguments)
                    await events.emit(.toolCalled(outcome.record))
                    try? await writer?.write(.text(RealtimeClientEvent.functionOutput(callID: call.callID, output: outcome.answer)))
                    continueTalking = true
                }
            }
        }
        if continueTalking, !toolQueued { try? await writer?.write(.text(RealtimeClientEvent.responseCreate())) }
    }

    /// One of the operator's tools: the model says the waiting line if it takes more than a moment
    /// (its own response, which must be done before the next), then hears the answer and replies.
    func runTool(_ call: RealtimeServerEvent.FunctionCall, writer: WebSocketOutboundWriter) async {
        guard let tool = context.modelTools.first(where: { $0.name == call.name }) else { return }
        let outcome: ToolRunner.Outcome
        let (lineSaid, lineEnds) = AsyncStream.makeStream(of: Void.self)
        if let toolRunner {
            outcome = await toolRunner.call(tool, arguments: call.arguments) {
                let line = tool.speakWhileWaiting ?? ToolDefinition.defaultWaitingLine
                self.state.withLock { $0.waitingLine = lineEnds }
                try? await writer.write(.text(RealtimeClientEvent.responseCreate(instructions: "Say exactly \"\(line)\" and nothing else.")))
            }
        } else {
            outcome = ToolRunner.unknownTool(call.name, arguments: call.arguments)
        }
        await events.emit(.toolCalled(outcome.record))
        try? await writer.write(.text(RealtimeClientEvent.functionOutput(callID: call.callID, output: outcome.answer)))
        // One response at a time: a waiting line still being said finishes first (bounded: 10 s).
        if state.withLock({ $0.waitingLine != nil }) {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await _ in lineSaid {} }
                group.addTask { try? await TaskClock().sleep(for: .seconds(10)) }
                await group.next()
                group.cancelAll()
            }
        }
        try? await writer.write(.text(RealtimeClientEvent.responseCreate()))
    }

    /// A flow's tool step: run by the server, beside the model (which waits for `next_step`'s answer).
    func runFlowTool(_ tool: ToolDefinition, arguments: String) async -> ToolRunner.Outcome {
        let outcome = await toolRunner?.call(tool, arguments: arguments) ?? ToolRunner.unknownTool(tool.name, arguments: arguments)
        await events.emit(.toolCalled(outcome.record))
        return outcome
    }

    /// The transfer reached nobody: the model hears so as the tool's result, and speaks.
    public func transferEnded(_ outcome: TransferOutcome) async {
        guard !outcome.leftTheCall else { return }
        let (callID, writer) = state.withLock { s in
            defer { s.transferCallID = nil }
            return (s.transferCallID, s.writer)
        }
        guard let callID else { return }
        var result = PromptBuilder.transferResult(outcome)
        if let flow = flowAfterFailedTransfer() {   // the flow goes on where the step says
            state.withLock { $0.instructions = flow.instructions }
            try? await writer?.write(.text(RealtimeClientEvent.instructionsUpdate(flow.instructions)))
            result = PromptBuilder.transferResult(outcome, nextStep: flow.step)
        }
        try? await writer?.write(.text(RealtimeClientEvent.functionOutput(callID: callID, output: result)))
        try? await writer?.write(.text(RealtimeClientEvent.responseCreate()))
    }

    func withTracker<R>(_ body: (inout TaskTracker) -> R) -> R {
        state.withLock { body(&$0.tracker) }
    }
}
