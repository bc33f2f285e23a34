import Egress
import Foundation
import Knowledge
import Testing
import TestSupport
import Tools
@testable import Calls
@testable import Realtime

/// `search_knowledge` in a cascade conversation against the fake OpenAI servers: the model asks
/// the call's collection in its own words, and its next request carries the FAQ passage the
/// store found (the same runner and tool the server builds for a call that names collections).
@Suite(.serialized) struct CascadeKnowledgeTests {
    static func chat(_ n: Int) -> (chunks: [String], delay: Duration) {
        guard n == 0 else {
            let end: [String: Any] = ["index": 0, "delta": ["tool_calls": [["index": 0, "id": "call_end", "type": "function",
                                      "function": ["name": "end_call", "arguments": #"{"reason":"answered"}"#]]]], "finish_reason": "tool_calls"]
            return (CascadeEngineTests.sse([CascadeEngineTests.content("Yes, there are twenty spaces in the basement."), end]) + ["data: [DONE]\n\n"], .milliseconds(10))
        }
        let call: [String: Any] = ["index": 0, "delta": ["tool_calls": [["index": 0, "id": "call_search", "type": "function",
                                   "function": ["name": "search_knowledge", "arguments": #"{"query":"where do I park at the clinic"}"#]]]], "finish_reason": "tool_calls"]
        return (CascadeEngineTests.sse([call]) + ["data: [DONE]\n\n"], .milliseconds(10))
    }

    @Test func theModelSearchesTheCallsCollectionAndGetsThePassage() async throws {
        let store = try CallStore(path: StoreBackend.temporarySQLitePath())
        let faq = "question,answer\nIs there parking at the clinic?,There are twenty parking spaces in the basement garage.\nWhen are you open?,Monday to Friday 9 to 6.\n"
        let base = KnowledgeBase(store: store.knowledge, embedder: nil)
        _ = try await base.upload(collection: "clinic", documents: [try KnowledgeDocument.parse(name: "faq.csv", bytes: Array(faq.utf8), sha256: "x")])
        let log = CascadeEngineTests.Log()
        let events = Locked<[EngineEvent]>([])
        try await CascadeEngineTests.withFakeServers(log, chat: Self.chat) { port in
            var context = OpenAIRealtimeEngineTests.context
            context.knowledge = ["clinic"]
            context.tools = [KnowledgeSearchTool.definition(collections: ["clinic"])]
            let tools = ToolRunner(transport: EgressToolTransport(policy: EgressPolicy(allowed: [], allowsLoopback: false)), secrets: ToolSecrets())
            let engine = CascadeEngine(context: context, settings: CascadeEngineTests.settings(port: port, deepgram: false),
                                       tools: CallSystem.runner(tools, for: context, knowledge: base))
            let seen = try await CascadeEngineTests.eventsUntilEndCall(engine)
            events.withLock { $0 = seen }
        }
        let bodies = log.chatBodies.value.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let offered = (bodies.first?["tools"] as? [[String: Any]])?.compactMap { ($0["function"] as? [String: Any])?["name"] as? String }
        #expect(offered?.contains("search_knowledge") == true)
        let system = ((bodies.first?["messages"] as? [[String: Any]])?.first?["content"] as? String) ?? ""
        #expect(system.contains("call `search_knowledge`"), "the prompt tells the model to look things up")
        let answer = (bodies.dropFirst().first?["messages"] as? [[String: Any]])?.last
        #expect(answer?["role"] as? String == "tool" && answer?["tool_call_id"] as? String == "call_search")
        let results = try JSONValue.parse(answer?["content"] as? String ?? "")["results"]
        guard case .array(let passages)? = results else { Issue.record("no results in \(answer ?? [:])"); return }
        #expect(passages.first?["title"]?.stringValue == "Is there parking at the clinic?")
        #expect(passages.first?["text"]?.stringValue == "There are twenty parking spaces in the basement garage.")
        let record = events.value.compactMap { if case .toolCalled(let record) = $0 { record } else { nil } }.first
        #expect(record?.tool == "search_knowledge" && record?.status == .ok)
        #expect(record?.passedOn == nil, "found: nothing to pass on")
    }
}
