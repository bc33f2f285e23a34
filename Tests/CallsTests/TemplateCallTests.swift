import Foundation
import Testing
import TestLanes
import TestSupport
@testable import Calls
@testable import Realtime

/// A call made from a template says the template's lines, with the call's variables, in the
/// template's voice — a whole call to the simulated callee in virtual time, heard back in the transcript.
@Suite(.serialized, .tags(.virtualTime)) struct TemplateCallTests {
    @Test func theAgentSpeaksTheTemplatesGreetingAndQuestionsFilledIn() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            let template = try await store.createTemplate(CallTemplate(name: "delivery", purpose: "the delivery of {item}", questions: ["Will you be home on {day}?"],
                                                                 greeting: "Hi {customer}, {display_name} here about {purpose}.", closing: "Thanks {customer}, goodbye.",
                                                                 voice: "en-gb-x-rp", variables: ["day": "Tuesday"]))
            var request = CallHarness.seedRequest(answers: ["Yes, I will be home."], questions: [])
            request.purpose = ""
            request.template = "delivery"
            request.variables = ["item": "your new desk", "customer": "Anna"]
            let id = try await manager.create(request).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock) { $0.state.isTerminal }
            #expect(call.state == .completed && call.templateId == template.id && call.templateVersion == 1 && call.voice == "en-gb-x-rp")
            let agent = try await store.transcript(callID: id).filter { $0.entry.speaker == .ai }.map(\.entry.text)
            #expect(agent.first == "Hi Anna, ABC Company here about the delivery of your new desk. Will you be home on Tuesday?", "\(agent)")
            #expect(agent.last?.hasSuffix("Thanks Anna, goodbye.") == true, "\(agent)")
            // The call's engine speaks in the template's voice.
            let engine = try CallSystem.localEngines(tts: try EspeakSynthesizer(), stt: try #require(CallHarness.speech).1)(await manager.context(for: call))
            #expect(((engine as? LocalEngine)?.tts as? EspeakSynthesizer)?.voice == "en-gb-x-rp")
            await #expect(throws: ValidationError.self) {
                var bad = CallHarness.seedRequest(callee: "010 1234 0000")
                bad.voice = "no-such-voice"
                _ = try await manager.create(bad)
            }
        }
    }
}
