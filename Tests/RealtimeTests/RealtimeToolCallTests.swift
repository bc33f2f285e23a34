import Egress
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import Testing
import TestSupport
import Tools
@testable import Realtime

/// The operator's tool on the OpenAI Realtime engine: offered in `session.update`; called, it runs
/// beside the socket while the model is asked to say the waiting line; its answer goes back as the
/// function output, and the reply is asked for only after the waiting line's response is done.
@Suite(.serialized) struct RealtimeToolCallTests {
    @Test func aSlowToolGetsAWaitingLineThenItsAnswerReachesTheModel() async throws {
        // The tool answers once the fake server has the waiting line's `response.create` — an
        // event, not a race between its answer and the runner's 700-ms wait (make test, 7 Dec: on a
        // loaded machine a tool that slept 1.2 s answered first, no line was asked for, and the
        // script, which skips what it does not wait for, never saw the tool's output).
        let (waitingAsked, asked) = AsyncStream.makeStream(of: Void.self)
        let tool = Router()
        tool.post("orders") { request, _ -> Response in
            _ = try await request.body.collect(upTo: 1 << 16)
            for await _ in waitingAsked { break }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"status":"shipped"}"#)))
        }
        let seen = Locked<[String]>([])
        let records = Locked<[ToolCallRecord]>([])
        try await withLoopbackServer(router: tool, webSocketRouter: Router(context: BasicWebSocketRequestContext.self)) { toolPort in
            defer { asked.finish() }   // a script that failed early leaves no request hanging
            let server = FakeRealtimeServer(key: "test-key", model: "gpt-realtime")
            try await server.run(script: { c in
                let update = try await c.next("session.update")
                let tools = ((update["session"] as? [String: Any])?["tools"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
                seen.withLock { $0.append("tools \(tools.joined(separator: ","))") }
                _ = try await c.next("response.create")
                try await c.send(OpenAIRealtimeEngineTests.functionCallDone("order_status", callID: "call_9", arguments: #"{"order":"A-17"}"#))
                let waiting = try await c.next("response.create")
                seen.withLock { $0.append("waiting \(((waiting["response"] as? [String: Any])?["instructions"] as? String) ?? "")") }
                asked.finish()
                try await c.send(["type": "response.done", "response": ["id": "resp_w", "status": "completed", "output": [] as [Any]]])
                let output = try await c.next("conversation.item.create")
                let item = output["item"] as? [String: Any]
                seen.withLock { $0.append("output \(item?["call_id"] as? String ?? "") \(item?["output"] as? String ?? "")") }
                let reply = try await c.next("response.create")
                seen.withLock { $0.append("reply \(reply["response"] == nil ? "plain" : "with instructions")") }
                try await c.send(OpenAIRealtimeEngineTests.functionCallDone("end_call", callID: "call_10", arguments: "{}"))
                try await Task.sleep(for: .milliseconds(300))
            }) { port in
                var settings = OpenAIRealtimeEngine.Settings(apiKey: "test-key")
                settings.baseURL = "http://127.0.0.1:\(port)/v1"
                var context = OpenAIRealtimeEngineTests.context
                context.tools = [ToolDefinition(name: "order_status", description: "Where an order is.",
                                                parameters: try JSONValue.parse(#"{"type":"object","properties":{"order":{"type":"string"}},"required":["order"]}"#),
                                                url: "http://127.0.0.1:\(toolPort)/orders", speakWhileWaiting: "Let me look that up.")]
                let runner = ToolRunner(transport: EgressToolTransport(policy: EgressPolicy(allowed: [], allowsLoopback: true)), secrets: ToolSecrets())
                let engine = OpenAIRealtimeEngine(context: context, settings: settings, tools: runner)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await engine.start() }
                    try await withTimeout(.seconds(10)) {
                        while let event = await engine.nextEvent() {
                            if case .toolCalled(let record) = event { records.withLock { $0.append(record) } }
                            if case .endCall = event { return }
                        }
                    }
                    group.cancelAll()
                }
                _ = await engine.stop()
            }
        }
        #expect(seen.value == ["tools update_task_state,end_call,press_keys,order_status", #"waiting Say exactly "Let me look that up." and nothing else."#,
                               #"output call_9 {"status":"shipped"}"#, "reply plain"])
        #expect(records.value.map(\.status) == [.ok] && records.value.first?.tool == "order_status")
    }
}
