import Dialogue
import Egress
import Flows
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport
@testable import API
@testable import Calls
@testable import Realtime

/// A template's flow through `/api/templates`: checked when saved (every problem named by step),
/// its questions derived, refused on an engine that does not run flows, and a flow call's result
/// with its outcome, path and typed fields.
@Suite(.serialized) struct FlowTemplateAPITests {
    static func json(_ buffer: ByteBuffer) -> [String: Any] { OutboundAPITests.json(buffer) }
    static func errors(_ buffer: ByteBuffer) -> [String] {
        (json(buffer)["errors"] as? [[String: Any]] ?? []).map { "\($0["field"] ?? ""): \($0["message"] ?? "")" }
    }

    static let template = #"""
        {"name": "open day", "purpose": "the open day", "flow": {"start": "attend", "steps": [
          {"id": "attend", "ask": "Will you come on Friday, {name}?", "field": "attending", "kind": "yes_no", "next": "route"},
          {"id": "route", "branch": [{"field": "attending", "equals": true, "next": "guests"}], "default": "declined"},
          {"id": "guests", "ask": "How many people will come?", "field": "guests", "kind": "number", "next": "booked"},
          {"id": "booked", "end": "See you on Friday.", "outcome": "registered"},
          {"id": "declined", "outcome": "declined"}
        ]}, "analysis": {"schema": {"type": "object", "properties": {"guests": {"type": "integer"}, "attending": {"type": "boolean"}}},
                         "success": "the callee registered"}}
        """#

    @Test(arguments: StoreBackend.allCases) func aFlowIsCheckedWhenSavedAndItsCallsResultCarriesItsFields(database: StoreBackend) async throws {
        let h = try await OutboundAPITests.harness(database: database, engine: .local)
        try await h.app.test(.router) { client in
            let post = { (body: String) in
                try await client.execute(uri: "/api/templates", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body)) { $0 }
            }
            let broken = Self.template.replacingOccurrences(of: #""next": "booked""#, with: #""next": "bookd""#)
                .replacingOccurrences(of: #""field": "attending", "equals": true"#, with: #""field": "guests", "equals": true"#)
            var response = try await post(broken)
            #expect(response.status == .unprocessableContent)
            #expect(Self.errors(response.body) == ["flow.steps.guests.next: names no step ('bookd')"], "the shape first: \(Self.errors(response.body))")
            response = try await post(broken.replacingOccurrences(of: "bookd", with: "booked"))
            #expect(Self.errors(response.body) == ["flow.steps.route.branch.0.field: 'guests' is not asked on every path to this step"])
            response = try await post(Self.template.replacingOccurrences(of: "See you on Friday.", with: "See you, {name}."))
            #expect(Self.errors(response.body) == ["flow.steps.booked.end: {name}: variables are filled in a flow's questions only"])

            response = try await post(Self.template.replacingOccurrences(of: #""type": "integer""#, with: #""type": "integer", "oneOf": []"#))
            #expect(Self.errors(response.body) == ["analysis.schema.properties.guests.oneOf: is not supported (supported: additionalProperties, const, enum, items, maxItems, maxLength, maximum, minItems, minLength, minimum, pattern, properties, required, type)"])

            response = try await post(Self.template)
            #expect(response.status == .created, "\(String(buffer: response.body))")
            let saved = Self.json(response.body)
            #expect(saved["questions"] as? [String] == ["Will you come on Friday, {name}?", "How many people will come?"])
            #expect((saved["flow"] as? [String: Any])?["start"] as? String == "attend")

            // A call from it: variables fill the flow's questions; questions of its own are refused.
            let call = #"{"template":"open day","caller_number":"070-1234-5678","callee_number":"010-2222-3333","variables":{"name":"Minsu"}}"#
            response = try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"],
                                                body: ByteBuffer(string: call.replacingOccurrences(of: #""variables""#, with: #""questions":["Hi?"],"variables""#))) { $0 }
            #expect(Self.errors(response.body) == ["questions: the template runs a flow, which asks its own questions: leave questions out"])
            response = try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: call)) { $0 }
            #expect(response.status == .accepted)
            let id = try #require(Self.json(response.body)["outbound_id"] as? String)
            let stored = try #require(try await h.store.call(id: id))
            #expect(stored.questions == ["Will you come on Friday, Minsu?", "How many people will come?"])

            // The result as the local dialogue leaves it (the SIP call itself: FlowCallTests).
            let template = try #require(try await h.store.template("open day"))
            var context = ConversationContext(purpose: stored.purpose, questions: stored.questions)
            context.flow = template.flow
            var dialogue = ScriptedDialogue(context: context)
            _ = dialogue.start()
            _ = dialogue.caller(said: "Yes.")
            _ = dialogue.caller(said: "Three of us.")
            try await h.store.saveResult(callID: id, result: ConversationResult(tracker: dialogue.tracker, transcript: [], durationSeconds: 20, context: context))
            for state in [CallState.dialing, .connected, .completed] { try await h.store.transition(id: id, to: state) }
            // The analysis outbox, offline (no model configured), run until the call's job is done.
            let settings = CallAnalysisDispatcher.Settings(VoiceBridgeConfig.Analysis(), egress: EgressPolicy(allowed: [], allowsLoopback: false))
            let analyses = Task { [store = h.store] in await CallAnalysisDispatcher(store: store, settings: settings, logger: .init(label: "test")).run() }
            // A job leaves `pending` in the transaction that announces its analysis: that event wakes this.
            let deadline = ContinuousClock.now.advanced(by: .seconds(5))
            while try await h.store.analysisJob(callID: id)?.state == .pending, ContinuousClock.now < deadline { await h.store.waitForEvents(timeout: .seconds(1)) }
            analyses.cancel()
            await analyses.value
            try await client.execute(uri: "/api/outbound/\(id)/result", method: .get) { response in
                let body = Self.json(response.body)
                #expect(body["outcome"] as? String == "registered")
                #expect(body["flow_path"] as? [String] == ["attend", "route", "guests", "booked"])
                let fields = body["fields"] as? [String: Any]
                #expect(fields?["attending"] as? Bool == true && fields?["guests"] as? Int == 3, "\(String(describing: fields))")
                #expect((body["answers"] as? [[String: Any]])?.compactMap { $0["question_id"] as? String } == ["attending", "guests"])
                let analysis = body["analysis"] as? [String: Any]
                #expect(analysis?["method"] as? String == "offline" && analysis?["success"] as? Bool == true && analysis?["category"] as? String == "registered")
                #expect((analysis?["data"] as? [String: Any])?["guests"] as? Int == 3 && analysis?["reason"] as? String == "the flow reached its end 'registered'",
                        "\(String(describing: analysis))")
            }
        }
    }

    @Test func anEngineThatDoesNotRunFlowsRefusesTheTemplate() async throws {
        let h = try await OutboundAPITests.harness()   // engine.mode echo
        try await h.app.test(.router) { client in
            try await client.execute(uri: "/api/templates", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: Self.template)) { response in
                #expect(response.status == .unprocessableContent)
                #expect(Self.errors(response.body) == ["flow: flows run on the local, realtime and cascade engines; this server runs echo"])
            }
        }
    }
}
