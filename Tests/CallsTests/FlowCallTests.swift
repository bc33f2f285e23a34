import Flows
import Foundation
import Testing
import TestSupport
@testable import Calls
@testable import Realtime

/// Offline, over a real SIP call: a template's flow branches on the simulated callee's spoken
/// answers (espeak-ng → RTP → Moonshine) and the result, stored and announced, holds the path,
/// the typed fields and the outcome.
@Suite(.serialized) struct FlowCallTests {
    static let flow = """
        {"start": "attend", "steps": [
          {"id": "attend", "ask": "Will you come to the open day on Friday?", "field": "attending", "kind": "yes_no", "next": "route"},
          {"id": "route", "branch": [{"field": "attending", "is": "yes", "next": "guests"}], "default": "declined"},
          {"id": "guests", "ask": "How many people will come with you?", "field": "guests", "kind": "number", "next": "size"},
          {"id": "size", "branch": [{"field": "guests", "min": 3, "next": "big_group"}], "default": "meal"},
          {"id": "big_group", "say": "For a group we will reserve a table.", "next": "meal"},
          {"id": "meal", "ask": "Would you like fish or pasta for lunch?", "field": "meal", "kind": "choice", "choices": ["fish", "pasta"], "next": "booked"},
          {"id": "booked", "end": "Thank you, see you on Friday.", "outcome": "registered"},
          {"id": "declined", "end": "Thank you for letting us know.", "outcome": "declined"}
        ]}
        """

    @Test func theCalleesAnswersChooseThePathAndTheResultHoldsTheFields() async throws {
        let store = try CallStore(path: StoreBackend.temporarySQLitePath())
        try await store.createWebhook(WebhookEndpoint(url: "http://127.0.0.1:9/all"))
        let flow = try JSONDecoder().decode(Flow.self, from: Data(Self.flow.utf8))
        try await CallHarness.run(rtpBase: 49400, store: store, tweak: { $0.retry.enabled = false }) { manager, store, _ in
            let template = try await manager.acceptable(CallTemplate(name: "open day", purpose: "the open day", questions: [], flow: flow))
            #expect(template.questions == ["Will you come to the open day on Friday?", "How many people will come with you?", "Would you like fish or pasta for lunch?"])
            _ = try await store.createTemplate(template)
            var request = CallHarness.seedRequest(answers: ["Yes, I will.", "Twenty five people.", "Fish, please."], questions: [])
            request.template = "open day"
            let id = try await manager.create(request).outboundId
            let call = try await CallHarness.waitFor(store, id, timeout: .seconds(90)) { $0.state.isTerminal }
            let said = try await store.transcript(callID: id).map { "\($0.entry.speaker.rawValue): \($0.entry.text)" }
            #expect(call.state == .completed && call.outcome == "registered", "\(said)")
            #expect(said.contains("ai: Thank you. For a group we will reserve a table. Would you like fish or pasta for lunch?"), "the say step on the way: \(said)")
            let result = try #require(try CallFlowResult(stored: call.flowResult))
            #expect(result.path == ["attend", "route", "guests", "size", "big_group", "meal", "booked"])
            #expect(result.typedFields == ["attending": .bool(true), "guests": .integer(25), "meal": .string("fish")])
            #expect(call.taskCompleted == true && (call.summary ?? "").hasSuffix("Outcome: registered."))
            let announced = try #require(try await store.webhookDeliveries(callID: id).first).payload
            #expect(announced.contains(#""fields":{"attending":true,"guests":25,"meal":"fish"}"#) && announced.contains(#""outcome":"registered""#), "\(announced)")
        }
    }
}
