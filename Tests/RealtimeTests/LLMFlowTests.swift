import Egress
import Flows
import Foundation
import Testing
import TestSupport
import Tools
@testable import Dialogue
@testable import Realtime

/// A flow on the LLM engines against the fake OpenAI servers: the model sees only the current
/// step, moves on with `next_step`, and the server checks each answer against the step's kind and
/// walks the graph itself — the path, fields and outcome come out as the local engine's do.
@Suite(.serialized) struct LLMFlowTests {
    static func context() throws -> ConversationContext {
        var context = try FlowDialogueTests.context()
        context.transferTarget = nil
        return context
    }

    static func call(_ id: String, _ name: String, _ arguments: String) -> [String: Any] {
        ["index": 0, "delta": ["tool_calls": [["index": 0, "id": id, "type": "function", "function": ["name": name, "arguments": arguments]]]], "finish_reason": "tool_calls"]
    }

    /// The model's side: a wrong value first (refused by the server), then the answers, then goodbye.
    static func chat(_ n: Int) -> (chunks: [String], delay: Duration) {
        let chunks: [[String: Any]] = switch n {
        case 0: [call("c0", "next_step", #"{"status":"answered","value":"maybe"}"#)]
        case 1: [call("c1", "next_step", #"{"status":"answered","value":"yes"}"#)]
        case 2: [FakeCascadeServers.content("How many people will come?")]
        case 3: [call("c3", "next_step", #"{"status":"answered","value":"25"}"#)]
        case 4: [call("c4", "next_step", #"{"status":"answered","value":"vegetarian"}"#)]
        default: [FakeCascadeServers.content("Thank you, see you on Friday."), call("c5", "end_call", #"{"reason":"done"}"#)]
        }
        return (FakeCascadeServers.sse(chunks) + ["data: [DONE]\n\n"], .milliseconds(5))
    }

    @Test func theCascadeModelWalksTheFlowStepByStepAsTheServerAllows() async throws {
        let log = FakeCascadeServers.Log()
        let tracker = Locked<TaskTracker?>(nil)
        try await FakeCascadeServers.withFakeServers(log, chat: Self.chat) { port in
            let engine = CascadeEngine(context: try Self.context(), settings: CascadeEngineTests.settings(port: port, deepgram: false))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                group.addTask {   // the callee answers once the agent asked its second question
                    try await log.wait("chat 2 end", timeout: .seconds(20))
                    engine.inputSink.yield(.heard("Twenty five of us, and vegetarian for all."))
                }
                try await withTimeout(.seconds(20)) {
                    while let event = await engine.nextEvent() { if case .endCall = event { return } }
                }
                tracker.withLock { $0 = nil }
                let final = await engine.stop()
                tracker.withLock { $0 = final }
                group.cancelAll()
            }
        }
        let bodies = log.chatBodies.value.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        func system(_ n: Int) -> String { ((bodies[n]["messages"] as? [[String: Any]])?.first?["content"] as? String) ?? "" }
        func lastTool(_ n: Int) -> String { ((bodies[n]["messages"] as? [[String: Any]])?.last { $0["role"] as? String == "tool" }?["content"] as? String) ?? "" }
        #expect(bodies.count == 6)
        let offered = (bodies.first?["tools"] as? [[String: Any]])?.compactMap { ($0["function"] as? [String: Any])?["name"] as? String }
        #expect(offered == ["next_step", "end_call", "transfer_call", "press_keys"], "next_step instead of update_task_state; the flow's transfer step needs transfer_call")
        #expect(system(0).contains("## Current step\nThen ask: \"Will you attend the seminar on Friday?\""), "\(system(0))")
        #expect(!system(0).contains("How many people"), "only the current step")
        #expect(lastTool(1) == #"{"error":"value must be yes or no; ask again if the answer was not clear"}"#)
        #expect(system(1) == system(0), "a refused step does not move")
        #expect(system(2).contains("Then ask: \"How many people will come?\""))
        #expect(lastTool(4).contains(#"First say: \"For five or more we will reserve a table.\". Then ask: \"Would you like the fish or the vegetarian menu?\""#), "\(lastTool(4))")
        #expect(system(5).contains("Then say: \"Thank you, see you on Friday.\" and call `end_call`."))
        let result = try #require(tracker.value)
        #expect(result.flow?.path == ["attend", "route", "guests", "size", "big_group", "meal", "booked"])
        #expect(result.flow?.outcome == "registered" && result.isComplete)
        #expect(result.flow?.fields["guests"] == FlowFieldValue(kind: .number, status: .answered, answer: "25"))
        #expect(result.answers.map(\.answerSummary) == ["yes", "25", "vegetarian"])
    }
}

/// A flow's tool step on the cascade engine: the server runs the tool itself when the model's
/// `next_step` reaches it (arguments from the fields), and the model hears where its answer led.
@Suite(.serialized) struct LLMFlowToolTests {
    struct Seats: LocalTool {
        let seen = Locked<[JSONValue]>([])
        func run(_ arguments: JSONValue) async -> LocalToolAnswer {
            seen.withLock { $0.append(arguments) }
            return LocalToolAnswer(answer: .object(["available": .bool(false)]))
        }
    }

    static func chat(_ n: Int) -> (chunks: [String], delay: Duration) {
        let chunks: [[String: Any]] = switch n {
        case 0: [LLMFlowTests.call("c0", "next_step", #"{"status":"answered","value":"4"}"#)]
        default: [FakeCascadeServers.content("We are full."), LLMFlowTests.call("c1", "end_call", "{}")]
        }
        return (FakeCascadeServers.sse(chunks) + ["data: [DONE]\n\n"], .milliseconds(5))
    }

    @Test func theServerRunsTheToolStepAndTheModelHearsWhereItLed() async throws {
        let log = FakeCascadeServers.Log()
        let seats = Seats()
        try await FakeCascadeServers.withFakeServers(log, chat: Self.chat) { port in
            var context = ConversationContext(purpose: "the dinner", questions: ["How many people?"], displayName: "ABC")
            context.flow = try JSONDecoder().decode(Flow.self, from: Data(FlowToolStepTestsData.flow.utf8))
            context.tools = [ToolDefinition(name: "check_seats", description: "Free seats.",
                                            parameters: try JSONValue.parse(#"{"type":"object","properties":{"count":{"type":"integer"},"note":{"type":"string"}}}"#),
                                            url: "http://127.0.0.1:9/seats")]
            let runner = ToolRunner(transport: EgressToolTransport(policy: EgressPolicy(allowed: [], allowsLoopback: false)), secrets: ToolSecrets())
                .adding(seats, named: "check_seats")
            let engine = CascadeEngine(context: context, settings: CascadeEngineTests.settings(port: port, deepgram: false), tools: runner)
            let seen = try await CascadeEngineTests.eventsUntilEndCall(engine)
            #expect(seen.contains { if case .toolCalled(let record) = $0 { record.tool == "check_seats" && record.status == .ok } else { false } })
        }
        #expect(seats.seen.value == [try JSONValue.parse(#"{"count":4,"note":"for 4 people"}"#)])
        let bodies = log.chatBodies.value.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let output = ((bodies.last?["messages"] as? [[String: Any]])?.last { $0["role"] as? String == "tool" }?["content"] as? String) ?? ""
        #expect(output.contains(#"First say: \"Let me check.\". Then say: \"We are full.\" and call `end_call`."#), "\(output)")
        let offered = (bodies.first?["tools"] as? [[String: Any]])?.compactMap { ($0["function"] as? [String: Any])?["name"] as? String }
        #expect(offered == ["next_step", "end_call", "press_keys"], "a flow's tools are the server's to run: none is offered to the model")
    }
}

/// The same on the OpenAI Realtime engine: the step is the session's instructions, changed with a
/// `session.update` each time `next_step` moves the flow.
@Suite(.serialized) struct RealtimeFlowTests {
    @Test func eachStepIsASessionUpdateAndTheFlowEndsWhereTheAnswersLead() async throws {
        let seen = Locked<[String]>([])
        let tracker = Locked<TaskTracker?>(nil)
        let server = FakeRealtimeServer(key: "test-key", model: "gpt-realtime")
        try await server.run(script: { c in
            let update = try await c.next("session.update")
            let session = update["session"] as? [String: Any]
            let tools = (session?["tools"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
            seen.withLock { $0.append("tools \(tools.joined(separator: ","))") }
            seen.withLock { $0.append("step " + ((session?["instructions"] as? String)?.components(separatedBy: "## Current step\n").last ?? "")) }
            _ = try await c.next("response.create")
            try await c.send(OpenAIRealtimeEngineTests.functionCallDone("next_step", callID: "call_1", arguments: #"{"status":"answered","value":"no"}"#))
            let changed = try await c.next("session.update")
            seen.withLock { $0.append("step " + (((changed["session"] as? [String: Any])?["instructions"] as? String)?.components(separatedBy: "## Current step\n").last ?? "")) }
            let output = try await c.next("conversation.item.create")
            seen.withLock { $0.append("output " + (((output["item"] as? [String: Any])?["output"] as? String) ?? "")) }
            _ = try await c.next("response.create")
            try await c.send(OpenAIRealtimeEngineTests.functionCallDone("end_call", callID: "call_2", arguments: "{}"))
            try await Task.sleep(for: .milliseconds(300))
        }) { port in
            var settings = OpenAIRealtimeEngine.Settings(apiKey: "test-key")
            settings.baseURL = "http://127.0.0.1:\(port)/v1"
            var context = try FlowDialogueTests.context()
            context.flow?.steps.removeAll { $0.id == "desk" }
            if let i = context.flow?.steps.firstIndex(where: { $0.id == "sorry" }) { context.flow?.steps[i].next = "declined" }
            let engine = OpenAIRealtimeEngine(context: context, settings: settings)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                try await withTimeout(.seconds(10)) {
                    while let event = await engine.nextEvent() { if case .endCall = event { return } }
                }
                group.cancelAll()
            }
            let final = await engine.stop()
            tracker.withLock { $0 = final }
        }
        #expect(seen.value == [
            "tools next_step,end_call,press_keys",
            #"step Then ask: "Will you attend the seminar on Friday?". When the callee has answered, call `next_step` with status answered and value yes or no; if they decline, with status refused; if no answer comes after asking twice, with status unclear. Do not ask anything else before calling it."#,
            #"step First say: "That's a pity.". Then say: "Thank you for letting us know." and call `end_call`."#,
            #"output {"next_step":"First say: \"That's a pity.\". Then say: \"Thank you for letting us know.\" and call `end_call`.","ok":true}"#,
        ])
        #expect(tracker.value?.flow?.outcome == "declined" && tracker.value?.flow?.path == ["attend", "route", "sorry", "declined"])
    }
}
