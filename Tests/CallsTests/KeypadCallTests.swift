import Foundation
import Realtime
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// Key presses as answers (telephone events from the simulated callee, in virtual time): a template's keypad
/// maps keys to the words they stand for, and the local dialogue takes them as the answer; every
/// key is in the transcript as `[DTMF n]`.
@Suite(.serialized, .tags(.virtualTime)) struct KeypadCallTests {
    @Test func aKeyAnswersAQuestionThatOffersKeys() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            _ = try await store.createTemplate(CallTemplate(name: "attend", purpose: "tomorrow's meeting",
                                                      questions: ["Can you attend? Press 1 for yes or 2 for no."], keypad: ["1": "yes", "2": "no"]))
            var request = CallHarness.seedRequest(answers: ["<dtmf 2>"], questions: [])
            request.template = "attend"
            let id = try await manager.create(request).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(90)) { $0.state.isTerminal }
            #expect(call.state == .completed, "\(call.state) \(call.failureReason ?? "")")
            let answers = try await store.answers(callID: id)
            #expect(answers.first?.status == .answered && answers.first?.answerSummary == "no", "\(answers)")
            let lines = try await store.transcript(callID: id).map(\.entry.text)
            #expect(lines.contains("[DTMF 2]"), "\(lines)")
        }
    }

    @Test func aKeypadMapsSingleKeysToWords() {
        let bad = CallTemplate(name: "t", purpose: "p", questions: ["q?"], keypad: ["12": "yes", "3": " "])
        #expect(throws: ValidationError.self) { try bad.validated(engineModes: ["local"]) }
        #expect(throws: Never.self) { try CallTemplate(name: "t", purpose: "p", questions: ["q?"], keypad: ["1": "yes", "#": "no"]).validated(engineModes: ["local"]) }
    }
}
