import Dialogue
import Egress
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Knowledge
import MetricsTestKit
import NIOCore
import Realtime
import Testing
import TestSupport
import Tools
@testable import Calls

/// A template's tool in a whole call: the server's cascade engine (against fake OpenAI servers)
/// calls it, the request leaves through the egress client with the configured secret, and the
/// call keeps it — a transcript line and the report's `tools`, the secret nowhere.
@Suite(.serialized, .enabled(if: CallHarness.speech != nil)) struct ToolCallTests {
    /// Greets and checks the calendar at once; then says what the tool answered and ends the call.
    static func chat(_ n: Int) -> (chunks: [String], delay: Duration) { chat(n, tool: "free_slots") }

    static func chat(_ n: Int, tool: String) -> (chunks: [String], delay: Duration) {
        if n == 0 {
            let call: [String: Any] = ["index": 0, "delta": ["tool_calls": [["index": 0, "id": "call_slots", "type": "function",
                                       "function": ["name": tool, "arguments": #"{"day":"2026-12-01"}"#]]]], "finish_reason": "tool_calls"]
            return (FakeCascadeServers.sse([FakeCascadeServers.content("Hello, this is ABC Company. "), call]) + ["data: [DONE]\n\n"], .milliseconds(5))
        }
        let end: [String: Any] = ["index": 0, "delta": ["tool_calls": [["index": 0, "id": "call_end", "type": "function",
                                  "function": ["name": "end_call", "arguments": #"{"reason":"told the slot"}"#]]]], "finish_reason": "tool_calls"]
        return (FakeCascadeServers.sse([FakeCascadeServers.content("Ten thirty is free. Goodbye."), end]) + ["data: [DONE]\n\n"], .milliseconds(5))
    }

    /// The server's cascade engine against the fake OpenAI servers on `port`.
    static func cascade(port: Int) -> VoiceBridgeConfig {
        var config = VoiceBridgeConfig()
        config.engine.mode = .cascade
        config.engine.cascade.stt = .openai
        config.engine.cascade.llmBaseURL = "http://127.0.0.1:\(port)/v1"
        config.engine.openAI.baseURL = "http://127.0.0.1:\(port)/v1"
        config.engine.openAI.apiKey = "test-key"
        return config
    }

    @Test func aTemplatesToolIsCalledDuringTheCallAndKeptWithIt() async throws {
        let asked = Locked<[String]>([])
        let tool = Router()
        tool.get("slots") { request, _ -> Response in
            asked.withLock { $0.append("\(request.uri.query ?? "") key=\(request.headers[.init("X-Api-Key")!] ?? "")") }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"free":["10:30"]}"#)))
        }
        let log = FakeCascadeServers.Log()
        let metrics = TestMetrics()
        let kept = Locked<(transcript: [TranscriptEntry], report: CallReport?)>(([], nil))
        try await withLoopbackServer(router: tool, webSocketRouter: Router(context: BasicWebSocketRequestContext.self)) { toolPort in
            try await FakeCascadeServers.withFakeServers(log, chat: Self.chat) { port in
                var config = Self.cascade(port: port)
                config.secrets = ["calendar_key": ToolSecret(value: "cal-s3cr3t", hosts: ["127.0.0.1"])]
                let engines = try CallSystem.engines(for: config.engine, egress: config.egressPolicy, tools: CallSystem.toolRunner(config: config, metrics: CallMetrics(factory: metrics)))
                try await CallHarness.run(tweak: { $0.toolSecrets = config.toolSecrets; $0.engineMode = "cascade" }, engines: engines) { manager, store, _ in
                    let slots = ToolDefinition(name: "free_slots", description: "The free appointment times on a day.",
                                               parameters: try JSONValue.parse(#"{"type":"object","properties":{"day":{"type":"string"}},"required":["day"]}"#),
                                               url: "http://127.0.0.1:\(toolPort)/slots", method: "GET", headers: ["X-Api-Key": "${secret:calendar_key}"])
                    var template = CallTemplate(name: "clinic", purpose: "your appointment", questions: ["Which time suits you?"])
                    template.tools = [slots]
                    template = try await store.createTemplate(try await manager.acceptable(template))
                    var request = CallHarness.seedRequest()
                    request.template = template.id
                    let id = try await manager.create(request).outboundId
                    let call = try await CallHarness.waitFor(store, id, timeout: .seconds(60)) { $0.state.isTerminal }
                    #expect(call.tools == [slots], "the call keeps the template's tools")
                    let transcript = try await store.transcript(callID: id).map(\.entry)
                    let report = try await store.report(callID: id)
                    kept.withLock { $0 = (transcript, report) }
                }
            }
        }
        let (transcript, report) = kept.value
        #expect(asked.value == ["day=2026-12-01 key=cal-s3cr3t"], "the tool got the model's arguments and the secret")
        let lines = transcript.filter { $0.speaker == .ai }.map(\.text)
        #expect(lines.contains { $0.hasPrefix(#"[tool free_slots {"day":"2026-12-01"} → ok, "#) }, "\(lines)")
        #expect(lines.last == "Ten thirty is free. Goodbye.")
        let record = try #require(report?.tools?.first)
        #expect(record.tool == "free_slots" && record.status == .ok && record.httpStatus == 200)
        #expect(!transcript.contains { $0.text.contains("cal-s3cr3t") })
        #expect(try metrics.expectCounter("voicebridge_tool_calls_total", [("status", "ok")]).totalValue == 1, "counted in /metrics")
        #expect(try metrics.expectTimer("voicebridge_tool_call_seconds").values.count == 1)
        let answer = (try? JSONSerialization.jsonObject(with: Data((log.chatBodies.value.dropFirst().first ?? "").utf8)) as? [String: Any])?["messages"] as? [[String: Any]]
        #expect(answer?.last?["content"] as? String == #"{"free":["10:30"]}"#, "the model heard the tool's answer")
    }

    /// The same call with the tool on an MCP server (Python's reference SDK) that the template names.
    @Test(.enabled(if: MCPReferenceServer.isInstalled)) func anMCPServersToolIsCalledDuringTheCall() async throws {
        let mcp = try await MCPReferenceServer()
        defer { mcp.stop() }
        let log = FakeCascadeServers.Log()
        let kept = Locked<[TranscriptEntry]>([])
        try await FakeCascadeServers.withFakeServers(log, chat: { Self.chat($0, tool: "clinic_free_slots") }) { port in
            let config = Self.cascade(port: port)
            let engines = try CallSystem.engines(for: config.engine, egress: config.egressPolicy, tools: CallSystem.toolRunner(config: config, metrics: .none))
            try await CallHarness.run(tweak: {
                $0.engineMode = "cascade"
                $0.mcpCatalog = MCPToolCatalog(transport: EgressToolTransport(policy: config.egressPolicy), secrets: config.toolSecrets)
            }, engines: engines) { manager, store, _ in
                var template = CallTemplate(name: "clinic-mcp", purpose: "your appointment", questions: ["Which time suits you?"])
                template.mcpServers = [MCPServerDeclaration(name: "clinic", url: mcp.url)]
                template = try await store.createTemplate(try await manager.acceptable(template))
                var request = CallHarness.seedRequest()
                request.template = template.id
                let id = try await manager.create(request).outboundId
                _ = try await CallHarness.waitFor(store, id, timeout: .seconds(60)) { $0.state.isTerminal }
                let transcript = try await store.transcript(callID: id).map(\.entry)
                kept.withLock { $0 = transcript }
            }
        }
        let bodies = log.chatBodies.value.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let offered = (bodies.first?["tools"] as? [[String: Any]])?.compactMap { ($0["function"] as? [String: Any])?["name"] as? String }
        #expect(offered == ["update_task_state", "end_call", "press_keys", "clinic_free_slots", "clinic_cancel_booking"] || offered == ["update_task_state", "end_call", "press_keys", "clinic_cancel_booking", "clinic_free_slots"], "\(offered ?? [])")
        let answer = (bodies.dropFirst().first?["messages"] as? [[String: Any]])?.last
        #expect(try JSONValue.parse(answer?["content"] as? String ?? "") == JSONValue.parse(#"{"day":"2026-12-01","free":["10:30","14:00"]}"#))
        #expect(kept.value.contains { $0.text.hasPrefix(#"[tool clinic_free_slots {"day":"2026-12-01"} → ok, "#) }, "\(kept.value.map(\.text))")
    }

    @Test func aToolNamingAnUnknownSecretIsRefusedWithTheField() async throws {
        try await CallHarness.run(engines: { _ in throw CocoaError(.featureUnsupported) }) { manager, _, _ in
            var template = CallTemplate(name: "bad", purpose: "p", questions: ["q?"])
            template.tools = [ToolDefinition(name: "crm", description: "CRM.", url: "https://crm.example.com/", headers: ["Authorization": "Bearer ${secret:nope}"])]
            await #expect(throws: ValidationError(fields: [.init(name: "tools.0.headers.Authorization",
                                                           message: "names the secret 'nope', which is not configured (secrets.nope in the configuration, its value there or in VOICEBRIDGE_SECRET_NOPE)")])) {
                try await manager.acceptable(template)
            }
        }
    }

    /// The model looks a question up and the call's collection has nothing on it: the model says it
    /// will pass it on, and the question is kept with the call for the operator, as the local
    /// engine's are (`/api/knowledge-questions`).
    @Test func aQuestionTheKnowledgeBaseCannotAnswerIsKeptForTheOperator() async throws {
        let log = FakeCascadeServers.Log()
        let kept = Locked<[KnowledgeQuestionStore.Question]>([])
        try await FakeCascadeServers.withFakeServers(log, chat: { n in
            guard n == 0 else { return Self.chat(1) }
            let call: [String: Any] = ["index": 0, "delta": ["tool_calls": [["index": 0, "id": "call_search", "type": "function",
                                       "function": ["name": "search_knowledge", "arguments": #"{"query":"do you sell gift cards"}"#]]]], "finish_reason": "tool_calls"]
            return (FakeCascadeServers.sse([call]) + ["data: [DONE]\n\n"], .milliseconds(5))
        }) { port in
            let config = Self.cascade(port: port)
            let store = try CallStore(path: StoreBackend.temporarySQLitePath())
            let faq = "question,answer\nIs there parking at the clinic?,There are twenty parking spaces behind the building.\n"
            try await store.knowledge.replace(collection: "clinic", documents: [try KnowledgeDocument.parse(name: "faq.csv", bytes: Array(faq.utf8), sha256: "x")])
            let engines = try CallSystem.engines(for: config.engine, egress: config.egressPolicy, tools: CallSystem.toolRunner(config: config, metrics: .none),
                                                 knowledge: store.knowledge)
            try await CallHarness.run(store: store, tweak: { $0.engineMode = "cascade" }, engines: engines) { manager, store, _ in
                var request = CallHarness.seedRequest()
                request.knowledge = ["clinic"]
                let id = try await manager.create(request).outboundId
                _ = try await CallHarness.waitFor(store, id, timeout: .seconds(60)) { $0.state.isTerminal }
                let open = try await store.knowledgeQuestions.open(askedWithin: 7).questions
                kept.withLock { $0 = open }
                #expect(open.first?.callID == id)
            }
        }
        #expect(kept.value.map(\.question) == ["do you sell gift cards"], "\(kept.value)")
        #expect(kept.value.first?.collections == ["clinic"])
    }
}
