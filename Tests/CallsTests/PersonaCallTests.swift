import Foundation
import Testing
import TestSupport
@testable import Calls
@testable import Realtime

/// Personas over real calls: the simulated callee speaks its script with espeak-ng over SIP/RTP,
/// the local engine hears it with Moonshine, and the stored result must be the expected one —
/// so recognition, extraction and storage are checked together. (`make bench` runs the whole
/// catalogue this way and prints the share that matches.)
@Suite(.serialized) struct PersonaCallTests {
    static let chosen = ["refuses the first", "call back after one answer", "silent", "busy"]

    @Test func personasGetTheRightStoredResultOverRealCalls() async throws {
        let personas = CalleePersona.catalogue.filter { Self.chosen.contains($0.name) }
        #expect(personas.count == Self.chosen.count)
        try await CallHarness.run(rtpBase: 44000, tweak: { $0.retry.enabled = false; $0.maxConcurrentCalls = 4 }) { manager, store, _ in
            var ids: [String] = []
            for (i, persona) in personas.enumerated() {
                let request = CallHarness.seedRequest(answers: persona.script, questions: persona.questions, callee: "010 7000 000\(i)")
                ids.append(try await manager.create(request).outboundId)
            }
            let now = Date()
            for (id, persona) in zip(ids, personas) {
                let call = try await CallHarness.waitFor(store, id, timeout: .seconds(120)) { $0.state.isTerminal }
                #expect(call.state == persona.state, "\(persona.name): \(call.state)")
                let stored = try store.answers(callID: id)
                let statuses = stored.isEmpty ? persona.questions.map { _ in TaskTracker.Status.notAsked } : stored.map(\.status)
                #expect(statuses == persona.expected.map(\.status), "\(persona.name): \(stored)")
                for (answer, summary) in zip(stored, persona.expectedSummaries(now: now)) where summary != nil {
                    #expect(answer.answerSummary == summary, "\(persona.name): \(answer.question) heard \(answer.answerText ?? "nothing")")
                }
            }
        }
    }
}
