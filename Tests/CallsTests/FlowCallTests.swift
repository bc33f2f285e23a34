import Egress
import Flows
import Foundation
import Testing
import TestLanes
import TestSupport
import Tools
@testable import Calls
@testable import Realtime

/// Offline, whole calls in virtual time: a 17-step flow with four branches and a tool step, every path to
/// every end taken by its own simulated callee (espeak-ng → μ-law → Moonshine), six calls at once;
/// each call's stored path, typed fields and outcome checked, the tool's arguments, and one call's webhook.
@Suite(.serialized, .tags(.virtualTime)) struct FlowCallTests {
    static let flow = """
        {"start": "attend", "steps": [
          {"id": "attend", "ask": "Will you come to the open day on Friday?", "field": "attending", "kind": "yes_no", "next": "route_attend"},
          {"id": "route_attend", "branch": [{"field": "attending", "is": "yes", "next": "guests"},
                                            {"field": "attending", "is": "refused", "next": "desk"}], "default": "other_day"},
          {"id": "other_day", "ask": "Would another day suit you better?", "field": "other_day", "kind": "yes_no", "next": "route_other_day"},
          {"id": "route_other_day", "branch": [{"field": "other_day", "is": "yes", "next": "dates_note"}], "default": "declined"},
          {"id": "dates_note", "say": "We will send you the other dates.", "next": "later"},
          {"id": "guests", "ask": "How many people will come with you?", "field": "guests", "kind": "number", "next": "route_guests"},
          {"id": "route_guests", "branch": [{"field": "guests", "min": 10, "next": "desk"},
                                            {"field": "guests", "min": 3, "next": "big_group"}], "default": "meal"},
          {"id": "big_group", "say": "For a group we will reserve a table.", "next": "meal"},
          {"id": "meal", "ask": "Would you like fish or pasta for lunch?", "field": "meal", "kind": "choice", "choices": ["fish", "pasta"], "next": "route_meal"},
          {"id": "route_meal", "branch": [{"field": "meal", "is": "answered", "next": "reserve"}], "default": "booked_no_meal"},
          {"id": "reserve", "tool": "reserve", "arguments": {"guests": "{guests}", "meal": "{meal}"}, "results": {"confirmation": "code"},
           "next": "booked", "on_error": "booked"},
          {"id": "booked", "end": "Thank you, see you on Friday.", "outcome": "registered"},
          {"id": "booked_no_meal", "end": "Thank you, see you on Friday.", "outcome": "registered_no_meal"},
          {"id": "declined", "end": "Thank you for letting us know.", "outcome": "declined"},
          {"id": "later", "end": "Thank you, goodbye.", "outcome": "later"},
          {"id": "desk", "transfer": "Let me put you through to our events desk.", "next": "desk_failed"},
          {"id": "desk_failed", "end": "We will call you back.", "outcome": "callback"}
        ]}
        """

    /// Each path: what the callee says, and the path, fields and outcome the call must store.
    /// Each path: what the callee says, and the path, fields and outcome the call must store. The
    /// lines are ones espeak-ng says and Moonshine hears right over μ-law.
    static let paths: [(answers: [String], path: [String], fields: [String: JSONValue], outcome: String)] = [
        // A number heard wrong is asked again, and the simulated callee (which hears the agent)
        // says it again, more slowly: each line is said once here, whatever the recognizer makes of it.
        (["Yes, I will.", "We are four people.", "Fish, please."],
         ["attend", "route_attend", "guests", "route_guests", "big_group", "meal", "route_meal", "reserve", "booked"],
         ["attending": .bool(true), "guests": .integer(4), "meal": .string("fish"), "confirmation": .string("R-17")], "registered"),
        (["Yes, I will.", "Only one person.", "I don't want to answer that."],
         ["attend", "route_attend", "guests", "route_guests", "meal", "route_meal", "booked_no_meal"],
         ["attending": .bool(true), "guests": .integer(1), "meal": .null], "registered_no_meal"),
        (["Yes, I will.", "Twenty five people."],
         ["attend", "route_attend", "guests", "route_guests", "desk", "desk_failed"],
         ["attending": .bool(true), "guests": .integer(25)], "callback"),
        (["No, I can't make it.", "Yes, please."],
         ["attend", "route_attend", "other_day", "route_other_day", "dates_note", "later"],
         ["attending": .bool(false), "other_day": .bool(true)], "later"),
        (["No, sorry.", "No, sorry."],
         ["attend", "route_attend", "other_day", "route_other_day", "declined"],
         ["attending": .bool(false), "other_day": .bool(false)], "declined"),
        (["I don't want to answer that."],
         ["attend", "route_attend", "desk", "desk_failed"],
         ["attending": .null], "callback"),
    ]

    struct Reservations: LocalTool {
        let seen = Locked<[JSONValue]>([])
        func run(_ arguments: JSONValue) async -> LocalToolAnswer {
            seen.withLock { $0.append(arguments) }
            return LocalToolAnswer(answer: .object(["code": .string("R-17")]))
        }
    }

    @Test func everyPathOfABranchingFlowStoresItsFieldsAndOutcome() async throws {
        let store = try CallStore(path: StoreBackend.temporarySQLitePath())
        try await store.webhooks.create(WebhookEndpoint(url: "http://127.0.0.1:9/all"))
        let flow = try JSONDecoder().decode(Flow.self, from: Data(Self.flow.utf8))
        #expect(flow.steps.count == 17 && flow.steps.filter { $0.branch != nil }.count == 4)
        // The tool is declared on the template; the engines' runner answers it here (no HTTP server).
        let reservations = Reservations()
        let (tts, stt) = try #require(CallHarness.speech)
        let runner = ToolRunner(transport: EgressToolTransport(policy: EgressPolicy(allowed: [], allowsLoopback: false)), secrets: ToolSecrets())
            .adding(reservations, named: "reserve")
        // Every path at once, in virtual time: no call waits on another's recognizer.
        _ = try await VirtualCallHarness.run(store: store, tweak: { $0.retry.enabled = false; $0.maxConcurrentCalls = 6 },
                                             engines: CallSystem.localEngines(tts: tts, stt: stt, tools: runner)) { manager, store, clock in
            var template = CallTemplate(name: "open day", purpose: "the open day", questions: [], flow: flow)
            template.tools = [ToolDefinition(name: "reserve", description: "Reserves the seats.",
                                             parameters: try JSONValue.parse(#"{"type":"object","properties":{"guests":{"type":"integer"},"meal":{"type":"string"}},"required":["guests"]}"#),
                                             url: "http://127.0.0.1:9/reserve")]
            template = try await manager.acceptable(template)
            _ = try await store.createTemplate(template)
            var ids: [String] = []
            for (n, path) in Self.paths.enumerated() {
                var request = CallHarness.seedRequest(answers: path.answers, questions: [], callee: "01098760\(10 + n)")
                request.template = "open day"
                ids.append(try await manager.create(request).outboundId)
            }
            for (id, expected) in zip(ids, Self.paths) {
                let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(90)) { $0.state.isTerminal }
                let said = try await store.transcript(callID: id).map { "\($0.entry.speaker.rawValue): \($0.entry.text)" }
                let result = try CallFlowResult(stored: call.flowResult)
                #expect(call.state == .completed && call.outcome == expected.outcome, "\(expected.answers): \(said)")
                #expect(result?.path == expected.path, "\(expected.answers): \(said)")
                let stored = result?.typedFields ?? [:]
                #expect(expected.fields.allSatisfy { stored[$0.key] == $0.value } && stored.count == expected.fields.count,
                        "\(expected.answers): \(stored) \(said)")
            }
            let registered = try #require(try await store.call(id: ids[0]))
            #expect(registered.taskCompleted == true && (registered.summary ?? "").hasSuffix("Outcome: registered."))
            let said = try await store.transcript(callID: ids[0]).map(\.entry.text)
            #expect(said.contains("Thank you. For a group we will reserve a table. Would you like fish or pasta for lunch?"), "the say step on the way: \(said)")
            let announced = try #require(try await store.webhooks.deliveries(callID: ids[0]).first).payload
            #expect(announced.contains(#""fields":{"attending":true,"confirmation":"R-17","guests":4,"meal":"fish"}"#) && announced.contains(#""outcome":"registered""#), "\(announced)")
            #expect(reservations.seen.value == [try JSONValue.parse(#"{"guests":4,"meal":"fish"}"#)], "the tool ran once, with the fields as arguments")
            #expect(said.contains { $0.hasPrefix("[tool reserve") }, "in the transcript: \(said)")
        }
    }
}
