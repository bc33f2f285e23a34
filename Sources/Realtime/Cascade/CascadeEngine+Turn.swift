import Dialogue
import Foundation
import Pipeline

/// One agent turn: the model's streamed text is cut into sentences that TTS speaks while the
/// model keeps writing; tool calls update the task state or end the call.
extension CascadeEngine {
    /// The call's tools in the chat-completions form.
    var tools: [[String: Any]] {
        PromptBuilder.tools(for: context).map { tool in
            ["type": "function", "function": ["name": tool.name, "description": tool.description,
                                              "parameters": (try? JSONSerialization.jsonObject(with: Data(tool.parameters.utf8))) ?? [:]]]
        }
    }

    func runTurn(_ input: TurnInput) async {
        switch input {
        case .greet:
            appendMessage(["role": "user", "content": "[The callee has answered the phone. Begin the call now.]"])
        case .heard(let text):
            let early = takeEarlyReply(for: text)
            await milestone(.transcribed)
            await events.emit(.transcript(speaker: .customer, text: text, item: nil))
            appendMessage(["role": "user", "content": text])
            if let early {
                guard let spokeOrEnded = await modelRound(taking: early), !spokeOrEnded else { return }
            }
        case .pressed(let digit):
            appendMessage(["role": "user", "content": PromptBuilder.keyPress(digit)])
        case .transferEnded(let callID, let outcome):
            var result = PromptBuilder.transferResult(outcome)
            if let flow = flowAfterFailedTransfer() {   // the flow goes on where the step says
                setInstructions(flow.instructions)
                result = PromptBuilder.transferResult(outcome, nextStep: flow.step)
            }
            appendMessage(["role": "tool", "tool_call_id": callID, "content": result])
        case .close(let reason):
            let item = nextItem()
            await speak(sentences: [context.closing], item: item)
            await events.emit(.transcript(speaker: .ai, text: context.closing, item: item))
            state.withLock { $0.ended = true }
            await events.emit(.endCall(reason: reason, afterItem: item))
            return
        }
        // A tool-only answer gets the model one more round to speak (bounded).
        for _ in 0..<3 where !Task.isCancelled {
            guard let spokeOrEnded = await modelRound(), !spokeOrEnded else { return }
        }
    }

    /// One streamed completion — `early`, when the turn takes a reply already asked for, or a
    /// request made now. Returns true when the agent spoke or the call ended, false when it only
    /// called tools (so it should continue), nil on cancellation or failure.
    func modelRound(taking early: ReplyRequest? = nil) async -> Bool? {
        let item = nextItem()
        let request = early ?? state.withLock { ReplyRequest(messages: $0.messages, revision: $0.revision) }
        let (sentences, sentenceSink) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(64))
        var spoken = ""
        var pending = ""
        var scanner = TaskStateTag.Scanner()
        var calls: [ChatCompletionStream.ToolCall] = []
        var firstToken = true
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                // TTS runs beside the model: the first sentence is heard while the rest is written.
                group.addTask { await self.speak(stream: sentences, item: item) }
                if early == nil { group.addTask { await request.run(chat: self.chat, tools: { self.tools }, meter: self.meter) } }
                try await request.read { output in
                    switch output {
                    case .text(let text):
                        if firstToken, let delay = request.firstPieceDelay {
                            firstToken = false
                            await self.milestone(.firstByte(provider: "llm", milliseconds: Int(delay.totalMilliseconds)))
                            await self.milestone(.replyStarted)
                        }
                        let (safe, reports) = scanner.feed(text)
                        for report in reports { await self.applyTaskState(arguments: report) }
                        pending += safe
                        while let cut = Self.sentenceEnd(in: pending) {
                            let sentence = String(pending[..<cut]).trimmingCharacters(in: .whitespacesAndNewlines)
                            pending = String(pending[cut...])
                            if !sentence.isEmpty { spoken += (spoken.isEmpty ? "" : " ") + sentence; sentenceSink.yield(sentence) }
                        }
                    case .finished(_, let toolCalls):
                        pending += scanner.finish()
                        let rest = pending.trimmingCharacters(in: .whitespacesAndNewlines)
                        if !rest.isEmpty { spoken += (spoken.isEmpty ? "" : " ") + rest; sentenceSink.yield(rest) }
                        calls = toolCalls
                    }
                }
                sentenceSink.finish()
                try await group.waitForAll()
            }
        } catch {
            sentenceSink.finish()
            if Task.isCancelled {
                // Barge-in: keep what was said so far in the history, marked as cut off.
                if !spoken.isEmpty { appendMessage(["role": "assistant", "content": spoken + " …"]) }
                return nil
            }
            logger.warning("cascade turn failed", metadata: ["error": "\(error)"])
            events.sendUrgent(.error(message: "llm: \(error)", fatal: false))
            return nil
        }
        if Task.isCancelled { return nil }
        if !spoken.isEmpty {
            let turns = state.withLock { s -> Int in s.aiTurns += 1; return s.aiTurns }
            await events.emit(.transcript(speaker: .ai, text: spoken, item: item))
            if turns >= context.maxTurns { inputSink.yield(.close("max_turns")) }
        }
        await events.emit(.audioDone(item: item))
        var assistant: [String: any Sendable] = ["role": "assistant", "content": spoken]
        if !calls.isEmpty {
            assistant["tool_calls"] = calls.map { ["id": $0.id, "type": "function", "function": ["name": $0.name, "arguments": $0.arguments]] as [String: any Sendable] }
        }
        appendMessage(assistant)
        var ranTools = false
        for call in calls {
            switch call.name {
            case "update_task_state":
                await applyTaskState(arguments: call.arguments)
                appendMessage(["role": "tool", "tool_call_id": call.id, "content": #"{"ok":true}"#])
            case FlowGuide.toolName:
                // The flow moves (or the model is told why not); the prompt now shows the new step.
                let (output, instructions) = await takeFlowStep(arguments: call.arguments)
                if let instructions { setInstructions(instructions) }
                appendMessage(["role": "tool", "tool_call_id": call.id, "content": output])
                ranTools = true
            case "end_call":
                let reason = ((try? JSONSerialization.jsonObject(with: Data(call.arguments.utf8))) as? [String: Any])?["reason"] as? String
                state.withLock { $0.ended = true }
                await events.emit(.endCall(reason: reason ?? "conversation finished", afterItem: item))
                return true
            case PromptBuilder.pressKeysTool:
                // Pressed on the line; the model says nothing more until the menu or a person answers.
                let keys = PromptBuilder.keys(inPressKeysArguments: call.arguments)
                if let keys { await events.emit(.sendKeys(keys)) }
                appendMessage(["role": "tool", "tool_call_id": call.id, "content": PromptBuilder.pressKeysOutput(keys)])
                ranTools = keys == nil   // an invalid call is answered at once, so the model can try again
            case "transfer_call":
                // The tool's result is the transfer's outcome: it comes back as a turn of its own.
                let reason = ((try? JSONSerialization.jsonObject(with: Data(call.arguments.utf8))) as? [String: Any])?["reason"] as? String
                state.withLock { $0.transferCallID = call.id }
                await events.emit(.transfer(reason: reason ?? "the caller asked for a person", afterItem: item))
                return true
            default:
                // The operator's tool: its answer goes back to the model, which speaks next round.
                let outcome = await callTool(named: call.name, arguments: call.arguments)
                appendMessage(["role": "tool", "tool_call_id": call.id, "content": outcome.answer])
                ranTools = true
            }
        }
        return !ranTools && (!spoken.isEmpty || calls.isEmpty)
    }

    /// Where the first complete sentence in `text` ends (after its punctuation), if any.
    static func sentenceEnd(in text: String) -> String.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            if ".?!。？！".contains(text[index]), next < text.endIndex, text[next].isWhitespace { return next }
            index = next
        }
        return nil
    }

    func speak(stream: AsyncStream<String>, item: String) async {
        var first = true
        for await sentence in stream where !Task.isCancelled {
            await speak(sentences: [sentence], item: item, timed: first)
            first = false
        }
    }

    /// `timed`: report the TTS provider's time to first audio (the first sentence of a reply).
    func speak(sentences: [String], item: String, timed: Bool = true) async {
        for (n, sentence) in sentences.enumerated() where !Task.isCancelled {
            meter.add { $0.ttsCharacters += sentence.count }
            let requested = VirtualTimeExecutor.now
            var waiting = timed && n == 0
            do {
                try await speech.synthesize(sentence) { samples in
                    if waiting {
                        waiting = false
                        await self.firstByte("tts", since: requested)
                    }
                    await self.events.emit(.audio(item: item, samples: samples))
                }
            } catch {
                if !Task.isCancelled { events.sendUrgent(.error(message: "tts: \(error)", fatal: false)) }
                return
            }
        }
    }

    func nextItem() -> String {
        state.withLock { s in s.turnNumber += 1; return "cascade-\(s.turnNumber)" }
    }

    /// The system prompt (a flow's: its current step).
    func setInstructions(_ text: String) {
        state.withLock { s in
            s.messages[0]["content"] = text
            s.revision += 1
        }
    }

    func appendMessage(_ message: [String: any Sendable]) {
        state.withLock { s in
            s.messages.append(message)
            s.revision += 1
        }
    }

    func withTracker<R>(_ body: (inout TaskTracker) -> R) -> R {
        state.withLock { body(&$0.tracker) }
    }
}
