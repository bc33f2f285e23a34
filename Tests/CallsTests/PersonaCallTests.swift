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
                let comparison = await persona.compare(state: call.state, answers: try store.answers(callID: id), now: now)
                // The transcript with its timings shows what a mismatch came from (CI saw one it could not show).
                let said = comparison.mismatches.isEmpty ? [] : try await store.transcript(callID: id).map {
                    "\(String(format: "%.2f", $0.entry.timestamp)) \($0.entry.speaker.rawValue): \($0.entry.text)"
                }
                #expect(comparison.mismatches.isEmpty, "\(persona.name): \(comparison.mismatches) — \(said)")
                #expect(comparison.statuses.total == persona.questions.count)
            }
        }
    }
}
