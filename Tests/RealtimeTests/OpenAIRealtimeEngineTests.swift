import Dialogue
import Foundation
import Pipeline
import Testing
import TestSupport
@testable import Realtime

/// The realtime engine against a fake Realtime server speaking the documented events.
@Suite(.serialized) struct OpenAIRealtimeEngineTests {
    static let context = ConversationContext(purpose: "tomorrow's 2 pm meeting", questions: ["Can you attend?", "Does the place need to change?"],
                                             displayName: "ABC Company")

    static func engine(port: Int) -> OpenAIRealtimeEngine {
        var settings = OpenAIRealtimeEngine.Settings(apiKey: "test-key")
        settings.baseURL = "http://127.0.0.1:\(port)/v1"
        settings.model = "gpt-realtime"
        settings.vad = .init(threshold: 0.6, prefixPaddingMs: 200, silenceDurationMs: 700)
        return OpenAIRealtimeEngine(context: context, settings: settings)
    }

    static func functionCallDone(_ name: String, callID: String, arguments: String) -> [String: Any] {
        ["type": "response.done", "response": ["id": "resp_x", "status": "completed",
                                               "output": [["type": "function_call", "name": name, "call_id": callID, "arguments": arguments]]]]
    }

    /// Session setup, streamed audio, barge-in → truncate clamped to what was generated, tool
    /// calls → task state and function output, the `[TASK_STATE]` fallback, end of call.
    @Test func aConversationWithBargeInToolsAndTheEnd() async throws {
        let server = FakeRealtimeServer(key: "test-key", model: "gpt-realtime")
        let seen = Locked<[EngineEvent]>([])
        let checks = Locked<[String: String]>([:])
        try await server.run(script: { c in
            let update = try await c.next("session.update")
            let session = update["session"] as? [String: Any] ?? [:]
            let audio = session["audio"] as? [String: Any] ?? [:]
            let input = audio["input"] as? [String: Any] ?? [:]
            let vad = input["turn_detection"] as? [String: Any] ?? [:]
            checks.withLock {
                $0["instructions"] = session["instructions"] as? String
                $0["in"] = (input["format"] as? [String: Any])?["type"] as? String
                $0["out"] = ((audio["output"] as? [String: Any])?["format"] as? [String: Any])?["type"] as? String
                $0["vad"] = "\(vad["type"] ?? "")/\(vad["threshold"] ?? "")/\(vad["silence_duration_ms"] ?? "")"
                $0["tools"] = (session["tools"] as? [[String: Any]])?.compactMap { $0["name"] as? String }.joined(separator: ",")
                $0["transcription"] = input["transcription"] != nil ? "on" : "off"
            }
            try await c.send(["type": "session.created", "session": ["id": "sess_1"]])
            _ = try await c.next("response.create")
            // 0.5 s of agent audio (4000 μ-law bytes) in 25 deltas, beta and GA names mixed.
            for n in 0..<25 {
                try await c.send(["type": n % 2 == 0 ? "response.output_audio.delta" : "response.audio.delta", "item_id": "item_a1",
                                  "response_id": "resp_1", "delta": Data(repeating: UInt8(n), count: 160).base64EncodedString()])
            }
            try await c.send(["type": "response.output_audio_transcript.done", "item_id": "item_a1",
                              "transcript": "Hello, this is ABC Company. Can you attend? [TASK_STATE]{\"question_id\":\"q2\",\"status\":\"refused\"}[/TASK_STATE]"])
            // The caller talks over it once some caller audio arrived.
            try await c.wait(for: 10, "input_audio_buffer.append")
            try await c.send(["type": "input_audio_buffer.speech_started", "audio_start_ms": 200, "item_id": "item_u1"])
            let truncate = try await c.next("conversation.item.truncate")
            checks.withLock { $0["truncate"] = "\(truncate["item_id"] ?? "")@\(truncate["audio_end_ms"] ?? "")" }
            // A late delta of the interrupted item must not be played.
            try await c.send(["type": "response.output_audio.delta", "item_id": "item_a1", "delta": Data(repeating: 9, count: 160).base64EncodedString()])
            try await c.send(["type": "conversation.item.input_audio_transcription.completed", "item_id": "item_u1", "transcript": "Yes, I can attend."])
            try await c.send(Self.functionCallDone("update_task_state", callID: "call_1",
                                                   arguments: #"{"question_id":"q1","status":"answered","answer_text":"Yes, I can attend.","answer_summary":"yes","confidence":0.9}"#))
            let output = try await c.next("conversation.item.create")
            checks.withLock { $0["output"] = (output["item"] as? [String: Any])?["call_id"] as? String }
            _ = try await c.next("response.create")
            try await c.send(["type": "error", "error": ["type": "invalid_request_error", "code": "x", "message": "harmless"]])
            try await c.send(Self.functionCallDone("end_call", callID: "call_2", arguments: #"{"reason":"all answered"}"#))
            try await Task.sleep(for: .milliseconds(300))
        }) { port in
            let engine = Self.engine(port: port)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                group.addTask {
                    // The caller's side: 20 ms μ-law frames, as the session sends them.
                    for _ in 0..<100 {
                        await engine.send(muLaw: [UInt8](repeating: 0xFF, count: 160), speech: .silence)
                        try await Task.sleep(for: .milliseconds(20))
                    }
                }
                try await withTimeout(.seconds(20)) {
                    while let event = await engine.nextEvent() {
                        seen.withLock { $0.append(event) }
                        if event == .speechStarted {
                            await engine.interrupt(item: "item_a1", playedMilliseconds: 0)      // nothing heard: no truncate
                            await engine.interrupt(item: "item_a1", playedMilliseconds: 9_999)  // clamped to 500 ms generated
                        }
                        if case .endCall = event { break }
                    }
                }
                let tracker = await engine.stop()
                checks.withLock { $0["answers"] = tracker.answers.map { "\($0.questionID)=\($0.status.rawValue)" }.joined(separator: ",") }
                group.cancelAll()
            }
        }
        let c = checks.value
        #expect(server.upgrades.value == ["Bearer test-key|gpt-realtime"])
        #expect(c["instructions"]?.contains("tomorrow's 2 pm meeting") == true && c["instructions"]?.contains("q2. Does the place need to change?") == true)
        #expect(c["in"] == "audio/pcmu" && c["out"] == "audio/pcmu", "μ-law passes through both ways")
        #expect(c["vad"] == "server_vad/0.6/700" && c["tools"] == "update_task_state,end_call,press_keys" && c["transcription"] == "on")
        #expect(c["truncate"] == "item_a1@500", "truncate at the played time, clamped to the 500 ms generated: \(c["truncate"] ?? "none")")
        #expect(c["output"] == "call_1")
        #expect(c["answers"] == "q1=answered,q2=refused", "tool call and [TASK_STATE] fallback both reach the tracker")
        let events = seen.value
        let audio = events.reduce(0) { if case .audioBytes(let item, let bytes) = $1, item == "item_a1" { $0 + bytes.count } else { $0 } }
        #expect(audio == 4000, "every delta before the barge-in was passed on, none after (\(audio) bytes)")
        let lines = events.compactMap { if case .transcript(let speaker, let text, _) = $0 { "\(speaker.rawValue): \(text)" } else { nil } }
        #expect(lines == ["ai: Hello, this is ABC Company. Can you attend?", "customer: Yes, I can attend."], "\(lines)")
        #expect(events.contains { if case .error(let message, false) = $0 { message.contains("harmless") } else { false } })
        #expect(events.last == .endCall(reason: "all answered", afterItem: "item_a1"))
    }

    /// The socket drops once: the engine reconnects and replays the conversation into the new session.
    @Test func aDroppedSocketIsReconnectedWithTheConversationRestored() async throws {
        let server = FakeRealtimeServer(key: "test-key", model: "gpt-realtime")
        let restored = Locked<[String]>([])
        try await server.run(script: { c in
            _ = try await c.next("session.update")
            _ = try await c.next("response.create")
            if c.index == 0 {
                try await c.send(["type": "response.output_audio_transcript.done", "item_id": "item_a1", "transcript": "Hello. Can you attend?"])
                try await c.send(["type": "conversation.item.input_audio_transcription.completed", "item_id": "item_u1", "transcript": "Yes."])
                try await Task.sleep(for: .milliseconds(200))
                return   // the socket closes under the engine
            }
            restored.withLock { $0 = c.messages.value.filter { $0.contains("conversation.item.create") } }
            try await c.send(Self.functionCallDone("end_call", callID: "call_9", arguments: "{}"))
            try await Task.sleep(for: .milliseconds(300))
        }) { port in
            let engine = Self.engine(port: port)
            let ended = try await withThrowingTaskGroup(of: EngineEvent?.self) { group -> EngineEvent? in
                group.addTask { try await engine.start(); return nil }
                group.addTask {
                    try await withTimeout(.seconds(20)) { () -> EngineEvent? in
                        while let event = await engine.nextEvent() {
                            if case .endCall = event { return event }
                            if case .error(_, true) = event { return event }
                        }
                        return nil
                    }
                }
                defer { group.cancelAll() }
                while let next = try await group.next() { if let next { return next } }
                return nil
            }
            #expect(ended == .endCall(reason: "conversation finished", afterItem: nil))
            _ = await engine.stop()
        }
        let lines = restored.value
        #expect(lines.count == 2 && lines[0].contains(#""role":"assistant""#) && lines[0].contains("Hello. Can you attend?")
                && lines[1].contains(#""role":"user""#) && lines[1].contains("Yes."), "\(lines)")
    }

    /// A key press reaches the model as the caller's line `[DTMF 5]`, and a reply is asked for.
    /// The key is pressed once the server has the greeting's `response.create`: pressed earlier (the
    /// socket open, the session not yet created — beside `make test`'s load, 7 Dec) its own
    /// `response.create` came first, and the script, skipping to it, never saw the key's item.
    @Test func aKeyPressIsAUserLineAndAsksForAReply() async throws {
        let server = FakeRealtimeServer(key: "test-key", model: "gpt-realtime")
        let seen = Locked<(role: String?, text: String?, replies: Int)>((nil, nil, 0))
        let (greeted, greeting) = AsyncStream.makeStream(of: Void.self)
        try await server.run(script: { c in
            _ = try await c.next("session.update")
            try await c.send(["type": "session.created", "session": ["id": "sess_1"]])
            _ = try await c.next("response.create")
            greeting.yield()
            let item = try await c.next("conversation.item.create")
            _ = try await c.next("response.create")
            let message = item["item"] as? [String: Any]
            let content = (message?["content"] as? [[String: Any]])?.first
            seen.withLock { $0 = (message?["role"] as? String, content?["text"] as? String, c.count("response.create")) }
            try await c.send(Self.functionCallDone("end_call", callID: "call_1", arguments: "{}"))
            try await Task.sleep(for: .milliseconds(300))
        }) { port in
            let engine = Self.engine(port: port)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                try await withTimeout(.seconds(30)) { for await _ in greeted { return } }
                await engine.dtmf("5")
                try await withTimeout(.seconds(30)) {
                    while let event = await engine.nextEvent() { if case .endCall = event { return } }
                }
                group.cancelAll()
            }
            _ = await engine.stop()
        }
        let (role, text, replies) = seen.value
        #expect(role == "user" && text == "[DTMF 5]", "\(role ?? "-") \(text ?? "-")")
        #expect(replies == 2, "the greeting's response.create, then the key's")
    }

    /// With a transfer target the model is offered `transfer_call` (and told when to use it); its call
    /// becomes a transfer event, and a transfer that reached nobody comes back as the tool's result
    /// with a request to reply. Without a target the tool is not offered.
    @Test func transferCallIsOfferedAndItsOutcomeReportedBack() async throws {
        let server = FakeRealtimeServer(key: "test-key", model: "gpt-realtime")
        let seen = Locked<(tools: [String], instructions: String, output: String?, call: String?)>(([], "", nil, nil))
        try await server.run(script: { c in
            let update = try await c.next("session.update")
            let session = update["session"] as? [String: Any]
            let tools = (session?["tools"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
            seen.withLock { $0.tools = tools; $0.instructions = session?["instructions"] as? String ?? "" }
            try await c.send(["type": "session.created", "session": ["id": "sess_1"]])
            _ = try await c.next("response.create")
            try await c.send(Self.functionCallDone("transfer_call", callID: "call_7", arguments: #"{"reason":"wants a human"}"#))
            let output = try await c.next("conversation.item.create")
            _ = try await c.next("response.create")
            let item = output["item"] as? [String: Any]
            seen.withLock { $0.call = item?["call_id"] as? String; $0.output = item?["output"] as? String }
            try await c.send(Self.functionCallDone("end_call", callID: "call_8", arguments: "{}"))
            try await Task.sleep(for: .milliseconds(300))
        }) { port in
            var settings = OpenAIRealtimeEngine.Settings(apiKey: "test-key")
            settings.baseURL = "http://127.0.0.1:\(port)/v1"
            var context = Self.context
            context.transferTarget = "+15550100099"
            let engine = OpenAIRealtimeEngine(context: context, settings: settings)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                try await withTimeout(.seconds(10)) {
                    while let event = await engine.nextEvent() {
                        if case .transfer(let reason, _) = event {
                            #expect(reason == "wants a human")
                            await engine.transferEnded(.busy)
                        }
                        if case .endCall = event { return }
                    }
                }
                group.cancelAll()
            }
            _ = await engine.stop()
        }
        let value = seen.value
        #expect(value.tools == ["update_task_state", "end_call", "transfer_call", "press_keys"] && value.instructions.contains("`transfer_call`"))
        #expect(value.call == "call_7" && value.output == #"{"transferred":false,"outcome":"busy"}"#, "\(value)")
    }

    /// It drops again after the reconnect: the call ends as engine_disconnected; a bad key never connects.
    @Test func aSecondDropEndsTheCallAndABadKeyFailsToStart() async throws {
        let server = FakeRealtimeServer(key: "test-key", model: "gpt-realtime")
        try await server.run(script: { c in
            _ = try await c.next("session.update")
        }) { port in
            let engine = Self.engine(port: port)
            try await withTimeout(.seconds(20)) { try await engine.start() }   // returns after giving up
            let fatal = try await withTimeout(.seconds(5)) { () -> String? in
                while let event = await engine.nextEvent() {
                    if case .error(let message, true) = event { return message }
                }
                return nil
            }
            #expect(fatal == OpenAIRealtimeEngine.disconnected)
            _ = await engine.stop()

            var settings = OpenAIRealtimeEngine.Settings(apiKey: "wrong")
            settings.baseURL = "http://127.0.0.1:\(port)/v1"
            await #expect(throws: (any Error).self) { try await OpenAIRealtimeEngine(context: Self.context, settings: settings).start() }
        }
        #expect(server.upgrades.value.count == 3, "two tries with the key, one without: \(server.upgrades.value)")
    }

    /// `max_turns` reached: the model is asked to say the closing words, and the call ends politely.
    @Test func maxTurnsEndsTheCallWithTheClosingLine() async throws {
        let server = FakeRealtimeServer(key: "test-key", model: "gpt-realtime")
        let closingRequest = Locked<String?>(nil)
        try await server.run(script: { c in
            _ = try await c.next("session.update")
            try await c.send(["type": "session.created", "session": ["id": "sess_1"]])
            _ = try await c.next("response.create")
            try await c.send(["type": "response.output_audio_transcript.done", "item_id": "item_a1", "transcript": "Hello. Can you attend?"])
            try await c.send(["type": "response.done", "response": ["id": "resp_1", "status": "completed", "output": [] as [Any]]])
            try await c.send(["type": "conversation.item.input_audio_transcription.completed", "item_id": "item_u1", "transcript": "Yes."])
            try await c.send(["type": "response.output_audio_transcript.done", "item_id": "item_a2", "transcript": "Thank you. Does the place need to change?"])
            // The second agent turn reaches max_turns = 2: the engine asks for the closing line.
            let close = try await c.next("response.create")
            closingRequest.withLock { $0 = (close["response"] as? [String: Any])?["instructions"] as? String }
            try await c.send(["type": "response.output_audio.delta", "item_id": "item_a3", "response_id": "resp_3",
                              "delta": Data(repeating: 0x20, count: 160).base64EncodedString()])
            try await c.send(["type": "response.output_audio_transcript.done", "item_id": "item_a3", "transcript": "Thank you for your time. Have a nice day."])
            try await c.send(["type": "response.done", "response": ["id": "resp_3", "status": "completed", "output": [] as [Any]]])
            try await Task.sleep(for: .milliseconds(500))
        }) { port in
            var context = Self.context
            context.maxTurns = 2
            var settings = OpenAIRealtimeEngine.Settings(apiKey: "test-key")
            settings.baseURL = "http://127.0.0.1:\(port)/v1"
            settings.model = "gpt-realtime"
            let engine = OpenAIRealtimeEngine(context: context, settings: settings)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                let end = try await withTimeout(.seconds(10)) { () -> EngineEvent? in
                    while let event = await engine.nextEvent() { if case .endCall = event { return event } }
                    return nil
                }
                #expect(end == .endCall(reason: "max_turns", afterItem: "item_a3"))
                _ = await engine.stop()
                group.cancelAll()
            }
        }
        #expect(closingRequest.value?.contains("Thank you for your time. Have a nice day.") == true, "\(closingRequest.value ?? "no closing request")")
    }
}
