import Foundation
import Testing
import TestSupport
@testable import Dialogue
@testable import Realtime

/// A phone menu on an outbound cascade call: the model is offered `press_keys` and told when to use
/// it; its call becomes the session's `sendKeys`, and keys that are not keys are refused to it.
@Suite(.serialized) struct CascadeKeyPressTests {
    /// One response: press 2 (or `keys`), then end the call.
    static func chat(keys: String) -> @Sendable (Int) -> (chunks: [String], delay: Duration) {
        { _ in
            let calls: [String: Any] = ["index": 0, "delta": ["tool_calls": [
                ["index": 0, "id": "call_press", "type": "function", "function": ["name": "press_keys", "arguments": #"{"keys":"\#(keys)"}"#]],
                ["index": 1, "id": "call_end", "type": "function", "function": ["name": "end_call", "arguments": #"{"reason":"done"}"#]],
            ]], "finish_reason": "tool_calls"]
            return (CascadeEngineTests.sse([calls]) + ["data: [DONE]\n\n"], .milliseconds(10))
        }
    }

    @Test func theModelsKeysArePressedOnTheLine() async throws {
        let log = CascadeEngineTests.Log()
        let seen = Locked<[EngineEvent]>([])
        try await CascadeEngineTests.withFakeServers(log, chat: Self.chat(keys: "2")) { port in
            let engine = CascadeEngine(context: OpenAIRealtimeEngineTests.context, settings: CascadeEngineTests.settings(port: port, deepgram: false))
            let events = try await CascadeEngineTests.eventsUntilEndCall(engine)
            seen.withLock { $0 = events }
        }
        let sent = seen.value.compactMap { if case .sendKeys(let keys) = $0 { keys } else { nil } }
        #expect(sent == ["2"])
        let body = try #require(log.chatBodies.value.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        let offered = (body["tools"] as? [[String: Any]])?.compactMap { ($0["function"] as? [String: Any])?["name"] as? String }
        #expect(offered?.contains("press_keys") == true)
        let instructions = ((body["messages"] as? [[String: Any]])?.first?["content"] as? String) ?? ""
        #expect(instructions.contains("`press_keys`") && instructions.contains("ivr_no_route"))
    }

    @Test func keysThatAreNotKeysAreRefused() {
        #expect(PromptBuilder.keys(inPressKeysArguments: #"{"keys":"2"}"#) == "2")
        #expect(PromptBuilder.keys(inPressKeysArguments: #"{"keys":"1#*0"}"#) == "1#*0")
        #expect(PromptBuilder.keys(inPressKeysArguments: #"{"keys":"two"}"#) == nil)
        #expect(PromptBuilder.keys(inPressKeysArguments: #"{"keys":"123456789"}"#) == nil)
        #expect(PromptBuilder.keys(inPressKeysArguments: #"{"keys":""}"#) == nil)
        #expect(PromptBuilder.keys(inPressKeysArguments: "not json") == nil)
    }

    @Test func anInboundCallIsNotOfferedKeys() {
        var context = OpenAIRealtimeEngineTests.context
        context.call.direction = "inbound"
        #expect(!PromptBuilder.tools(for: context).contains { $0.name == "press_keys" })
        #expect(!PromptBuilder.instructions(for: context).contains("press_keys"))
    }
}
