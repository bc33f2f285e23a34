import Bridge
import Dialogue
import Foundation
import Knowledge
import Realtime
import Testing
import TestLanes
import TestSupport
@testable import Calls
import Simulation

/// Phone menus on outbound calls, whole calls in virtual time: the simulated callee plays a menu
/// (espeak-ng) and goes on only when it hears the key it waits for — here its tone in the agent's
/// audio, as the in-memory line carries no RFC 4733 events (`PhoneMenuSIPTests` sends one over SIP);
/// the local engine listens, presses, waits and talks to the person who answers.
@Suite(.serialized, .tags(.virtualTime)) struct PhoneMenuCallTests {
    static func request(_ script: [String], purpose: String, question: String, callee: String) -> OutboundCallRequest {
        var request = CallHarness.seedRequest(answers: script, maxRetries: 0, questions: [question], callee: callee)
        request.purpose = purpose
        return request
    }

    /// Places the call, waits in virtual time for its end, and gives its transcript, also as
    /// "speaker: text" lines for the checks' messages.
    static func placed(_ request: OutboundCallRequest, _ manager: CallManager, _ store: CallStore, _ clock: CallClock,
                       timeout: Duration = .seconds(180)) async throws -> (id: String, call: CallRecord, lines: [TranscriptEntry], said: [String]) {
        let id = try await manager.create(request).outboundId
        let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: timeout) { $0.state.isTerminal }
        let lines = try await store.transcript(callID: id).map(\.entry)
        return (id, call, lines, lines.map { "\($0.speaker): \($0.text)" })
    }

    @Test func theAgentPressesTowardItsPurposeAndTalksToThePerson() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            let script = ["<ivr 2 Thank you for calling. For billing, press 1. For deliveries, press 2. To speak to an operator, press 0.>",
                          "<ivr 1 To book a new delivery time, press 1. To track a parcel, press 2.>",
                          "<pause 3000> Hello, deliveries, Jo speaking.",
                          "Yes, Friday is fine."]
            let (id, call, lines, said) = try await Self.placed(Self.request(script, purpose: "booking a delivery time for your parcel", question: "Can we deliver on Friday?",
                                                                             callee: "0109877801"), manager, store, clock)
            #expect(call.state == .completed && call.failureReason == nil, "\(call.state) \(call.failureReason ?? ""): \(said)")
            #expect(lines.filter { $0.speaker == .ai && $0.text.hasPrefix("[DTMF") }.map(\.text) == ["[DTMF 2]", "[DTMF 1]"], "\(said)")
            let answer = try #require(try await store.answers(callID: id).first)
            #expect(answer.status == .answered && answer.answerSummary == "yes", "the person, reached through both keys, answered: \(said)")
            let report = try #require(try await store.report(callID: id))
            #expect(report.keysSent?.map(\.key) == ["2", "1"])
            #expect(call.summary?.contains("Phone menu: pressed 2 (delivery), then 1 (book a new delivery time).") == true, "\(call.summary ?? "")")
        }
    }

    /// A menu that asks for speech, with no key: the agent says the option toward its purpose, and
    /// the IVR — hearing the agent with its recognizer — goes on only when it hears that word. The
    /// IVR speaks in Piper's voice: Moonshine hears espeak-ng's "say" as "pay" or "stay".
    @Test func aMenuThatAsksForSpeechGetsTheOptionSaid() async throws {
        let (tts, _) = try #require(CallHarness.speech)
        let piper = try PiperVoice.installed(in: Fixtures.deps)
        _ = try await VirtualCallHarness.run(tweak: { settings in
            settings.inProcessCallee = try? SimulatedCallee(rtpPorts: 40000...40001, tts: tts, natural: piper, hearing: CallHarness.ear, clock: settings.clock)
        }) { manager, store, clock in
            let script = ["<ivr say:repairs Thanks for calling. Please say sales, repairs, or accounts.>",
                          "<pause 2500> Hello, repairs desk, Jo speaking.", "Yes, Friday is fine."]
            let (id, call, lines, said) = try await Self.placed(Self.request(script, purpose: "the repairs to your washing machine", question: "Can the engineer come on Friday?",
                                                                             callee: "0109877805"), manager, store, clock)
            #expect(call.state == .completed && call.failureReason == nil, "\(call.state) \(call.failureReason ?? ""): \(said)")
            #expect(lines.contains { $0.speaker == .ai && $0.text == "Repairs." }, "the option said: \(said)")
            #expect(!lines.contains { $0.text.hasPrefix("[DTMF") }, "nothing pressed: \(said)")
            let answer = try #require(try await store.answers(callID: id).first)
            #expect(answer.status == .answered && answer.answerSummary == "yes", "\(said)")
            #expect(call.summary?.contains("Phone menu: chose \"repairs\".") == true, "\(call.summary ?? "")")
        }
    }

    @Test func aMenuWithNoWayToThePurposeEndsTheCallIvrNoRoute() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            let script = ["<ivr 9 For billing, press 1. For deliveries, press 2.>", "Hello?"]
            let (_, call, lines, _) = try await Self.placed(Self.request(script, purpose: "the survey about the new park", question: "Do you visit the park?",
                                                                         callee: "0109877802"), manager, store, clock)
            #expect(call.state == .completed && call.failureReason == "ivr_no_route", "\(call.state) \(call.failureReason ?? ""): \(lines.map(\.text))")
            #expect(!lines.contains { $0.text.hasPrefix("[DTMF") }, "nothing pressed")
        }
    }

    /// A template's known path: the keys pressed on time, nothing said into the menu, the person
    /// greeted. (Each wait outlasts its menu: the simulated IVR, busy saying a long menu, keeps only
    /// the last 4 s of what it hears, so a key pressed early in its next menu would be lost.)
    @Test func aTemplatesKnownPathIsPressedWithoutAWordIntoTheMenu() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            var template = CallTemplate(name: "deliveries line", purpose: "booking a delivery time for your parcel", questions: ["Can we deliver on Friday?"])
            template.menuPath = [.init(keys: "2", waitSeconds: 10), .init(keys: "1", waitSeconds: 7)]
            _ = try await store.createTemplate(template)
            let script = ["<ivr 2 Thank you for calling. For billing, press 1. For deliveries, press 2. To speak to an operator, press 0.>",
                          "<ivr 1 To book a new delivery time, press 1. To track a parcel, press 2.>",
                          "<pause 2000> Hello, deliveries, Jo speaking.",
                          "Yes, Friday is fine."]
            var request = CallHarness.seedRequest(answers: script, maxRetries: 0, questions: [], callee: "0109877803")
            request.template = "deliveries line"
            let (id, call, lines, said) = try await Self.placed(request, manager, store, clock)
            #expect(call.state == .completed && call.failureReason == nil, "\(call.state) \(call.failureReason ?? ""): \(said)")
            let agent = lines.filter { $0.speaker == .ai }.map(\.text)
            #expect(Array(agent.prefix(2)) == ["[DTMF 2]", "[DTMF 1]"], "the keys before any word: \(said)")
            let report = try #require(try await store.report(callID: id))
            #expect(report.keysSent?.map(\.key) == ["2", "1"] && report.keysSent?.map(\.how) == [.tone, .tone])
            let seconds = report.keysSent?.map(\.seconds) ?? []
            #expect(seconds.count == 2 && seconds[0] >= 10 && seconds[1] - seconds[0] >= 7, "each key after its wait: \(seconds)")
            let answer = try #require(try await store.answers(callID: id).first)
            #expect(answer.status == .answered && answer.answerSummary == "yes", "\(said)")
            #expect(call.summary?.contains("Phone menu: pressed 2, then 1.") == true, "\(call.summary ?? "")")
        }
    }

    /// Options that share the same words with the goal: the one closer in meaning (the knowledge
    /// base's embedding model, as the server gives the local engine), not the first.
    @Test func aTieOfWordsIsSettledByMeaning() async throws {
        let deps = Fixtures.repository.appendingPathComponent(".deps").path
        let (tts, stt) = try #require(CallHarness.speech)
        let engines = CallSystem.localEngines(tts: tts, stt: stt, turns: CallHarness.turns, meaning: try E5Embedder.shared(in: deps))
        _ = try await VirtualCallHarness.run(engines: engines) { manager, store, clock in
            let script = ["<ivr 2 Thanks for calling. To place a new order, press 1. To track an order you placed, press 2.>",
                          "<pause 2000> Hello, orders, Sam speaking.", "Yes, Friday is fine."]
            let (id, call, _, said) = try await Self.placed(Self.request(script, purpose: "your order's delivery date", question: "Can the order arrive on Friday?",
                                                                         callee: "0109877804"), manager, store, clock)
            #expect(call.state == .completed && call.failureReason == nil, "\(call.state) \(call.failureReason ?? ""): \(said)")
            #expect(try await store.report(callID: id)?.keysSent?.map(\.key) == ["2"], "\(said)")
            #expect(try await store.answers(callID: id).first?.status == .answered, "\(said)")
        }
    }

    /// After the key, a minute and a half of hold music (no words, no pause) before the person: the
    /// agent says nothing through it — more than the minute it gives a menu before any key — and
    /// talks to the person.
    @Test func theAgentWaitsSilentlyThroughHoldMusic() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            let script = ["<ivr 2 Thank you for calling. For billing, press 1. For deliveries, press 2.>",
                          "<music 90000> Hello, deliveries, Jo speaking.", "Yes, Friday is fine."]
            var request = Self.request(script, purpose: "your parcel delivery", question: "Can we deliver on Friday?", callee: "0109877805")
            request.maxDuration = 300
            let (id, call, lines, said) = try await Self.placed(request, manager, store, clock, timeout: .seconds(300))
            #expect(call.state == .completed && call.failureReason == nil, "\(call.state) \(call.failureReason ?? ""): \(said)")
            let key = try #require(lines.firstIndex { $0.speaker == .ai && $0.text == "[DTMF 2]" }, "\(said)")
            let next = lines[(key + 1)...].first { $0.speaker == .ai }
            #expect(next?.text.contains("Can we deliver on Friday?") == true, "nothing said on hold, then the opening: \(said)")
            #expect(try await store.answers(callID: id).first?.status == .answered, "\(said)")
        }
    }
}
