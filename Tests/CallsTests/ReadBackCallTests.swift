import Foundation
import Testing
import TestLanes
import TestSupport
@testable import Calls
@testable import Realtime

/// In a whole call in virtual time (espeak-ng → μ-law → Moonshine, both ways): the local engine reads the
/// callee's name back, and the simulated callee — which hears the agent — answers the read-back
/// ("Yes, that's right." or "No," and its name again) without using up its script; the next
/// question gets the next line. What Moonshine makes of the name varies; the exchange does not.
@Suite(.serialized, .tags(.virtualTime)) struct ReadBackCallTests {
    @Test func theAgentReadsTheNameBackAndTheCalleeAnswersTheReadBack() async throws {
        _ = try await VirtualCallHarness.run(tweak: { $0.retry.enabled = false }) { manager, store, clock in
            let request = CallHarness.seedRequest(answers: ["My name is Jane Smith.", "Yes, I can attend."],
                                                  questions: ["May I have your name?", "Can you attend?"])
            let id = try await manager.create(request).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(120)) { $0.state.isTerminal }
            let lines = try await store.transcript(callID: id).map(\.entry)
            let shown = lines.map { "\($0.speaker == .ai ? "ai" : "callee"): \($0.text)" }
            #expect(call.state == .completed, "\(shown)")
            let readBack = try #require(lines.firstIndex { $0.speaker == .ai && $0.text.hasPrefix("I have ") && $0.text.hasSuffix("Is that right?") },
                                        "no read-back: \(shown)")
            let reply = try #require(lines[(readBack + 1)...].first { $0.speaker == .customer }, "\(shown)")
            // "Yes, that's right." or "No, my name is …" — not its next line ("Yes, I can attend.",
            // which the recognizer also heard as "Yes, I can't offend.").
            let confirmsOrCorrects = reply.text.lowercased().hasPrefix("yes, that") || reply.text.lowercased().hasPrefix("no")
            #expect(confirmsOrCorrects, "the callee answered the read-back, not the next question: \(shown)")
            let asked = try #require(lines.firstIndex { $0.speaker == .ai && $0.text.hasSuffix("Can you attend?") }, "\(shown)")
            #expect(asked > readBack, "\(shown)")
            let answers = try await store.answers(callID: id)
            #expect(answers.last?.status == .answered && answers.last?.answerSummary == "yes", "\(shown)")
        }
    }
}
