import Egress
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import Testing
import TestSupport
import Tools
@testable import Realtime

/// The operator's HTTP tool in a cascade conversation, through the server's own transport (the
/// egress policy's client): the model calls it, the tool server gets the checked arguments with the
/// secret header, the caller hears the waiting line while it runs, and the model's next request
/// carries the tool's answer.
@Suite(.serialized) struct CascadeToolCallTests {
    static let booking = ToolDefinition(
        name: "book_slot", description: "Book an appointment slot for the caller.",
        parameters: try! JSONValue.parse(#"{"type":"object","properties":{"date":{"type":"string"},"time":{"type":"string"}},"required":["date"]}"#),
        url: "http://127.0.0.1:9/book", method: "POST", headers: ["Authorization": "Bearer ${secret:crm_token}"],
        // The longest allowed: this checks the answer's way back, not the time limit (ToolRunnerTests does).
        // At the 5-s default, beside busy loops the tool's 1.2-s answer once came too late (5 Dec).
        timeoutMilliseconds: ToolDefinition.timeoutRange.upperBound,
        speakWhileWaiting: "Let me check the calendar.")

    /// Greeting with a call to `book_slot`, then the booking said and the call ended.
    static func chat(_ n: Int) -> (chunks: [String], delay: Duration) {
        guard n == 0 else {
            let end: [String: Any] = ["index": 0, "delta": ["tool_calls": [["index": 0, "id": "call_end", "type": "function",
                                      "function": ["name": "end_call", "arguments": #"{"reason":"booked"}"#]]]], "finish_reason": "tool_calls"]
            return (CascadeEngineTests.sse([CascadeEngineTests.content("You are booked for ten thirty."), end]) + ["data: [DONE]\n\n"], .milliseconds(10))
        }
        let call: [String: Any] = ["index": 0, "delta": ["tool_calls": [["index": 0, "id": "call_book", "type": "function",
                                   "function": ["name": "book_slot", "arguments": #"{"date":"2026-12-01","time":"10:30"}"#]]]], "finish_reason": "tool_calls"]
        return (CascadeEngineTests.sse([call]) + ["data: [DONE]\n\n"], .milliseconds(10))
    }

    @Test func theModelCallsADeclaredToolAndHearsItsAnswer() async throws {
        let log = CascadeEngineTests.Log()
        let received = Locked<[(authorization: String?, body: String)]>([])
        let tool = Router()
        tool.post("book") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 1 << 16))
            received.withLock { $0.append((request.headers[.authorization], body)) }
            try await Task.sleep(for: .milliseconds(1200))   // longer than a moment: the waiting line is said
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"booked":true,"time":"10:30"}"#)))
        }
        let events = Locked<[EngineEvent]>([])
        try await withLoopbackServer(router: tool, webSocketRouter: Router(context: BasicWebSocketRequestContext.self)) { toolPort in
            try await CascadeEngineTests.withFakeServers(log, chat: Self.chat) { port in
                var context = OpenAIRealtimeEngineTests.context
                var booking = Self.booking
                booking.url = "http://127.0.0.1:\(toolPort)/book"
                context.tools = [booking]
                let runner = ToolRunner(transport: EgressToolTransport(policy: EgressPolicy(allowed: [], allowsLoopback: true)),
                                        secrets: ToolSecrets(configured: ["crm_token": ToolSecret(value: "s3cr3t-token", hosts: ["127.0.0.1"])]))
                let engine = CascadeEngine(context: context, settings: CascadeEngineTests.settings(port: port, deepgram: false), tools: runner)
                let seen = try await CascadeEngineTests.eventsUntilEndCall(engine)
                events.withLock { $0 = seen }
            }
        }
        let request = try #require(received.value.first, "the tool was called")
        #expect(received.value.count == 1)
        #expect(request.authorization == "Bearer s3cr3t-token")
        #expect(try JSONValue.parse(request.body) == JSONValue.parse(#"{"date":"2026-12-01","time":"10:30"}"#))

        let bodies = log.chatBodies.value.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let offered = (bodies.first?["tools"] as? [[String: Any]])?.compactMap { $0["function"] as? [String: Any] }
        #expect(offered?.map { $0["name"] as? String } == ["update_task_state", "end_call", "press_keys", "book_slot"])
        #expect((offered?.last?["parameters"] as? [String: Any])?["required"] as? [String] == ["date"])
        let answer = (bodies.dropFirst().first?["messages"] as? [[String: Any]])?.last
        #expect(answer?["role"] as? String == "tool" && answer?["tool_call_id"] as? String == "call_book", "\(answer ?? [:])")
        #expect(answer?["content"] as? String == #"{"booked":true,"time":"10:30"}"#)

        let lines = events.value.compactMap { event -> String? in
            switch event {
            case .transcript(.ai, let text, _): text
            case .toolCalled(let record): "tool \(record.tool) \(record.status.rawValue)"
            default: nil
            }
        }
        #expect(lines == ["Let me check the calendar.", "tool book_slot ok", "You are booked for ten thirty."])
        #expect(log.all("speech").contains { $0.hasSuffix("|Let me check the calendar.") }, "the waiting line was spoken")
        let record = events.value.compactMap { if case .toolCalled(let r) = $0 { r } else { nil } }.first
        #expect((record?.milliseconds ?? 0) >= 1200 && record?.arguments == #"{"date":"2026-12-01","time":"10:30"}"#)
    }
}
