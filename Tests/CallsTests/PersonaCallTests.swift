import Foundation
import Personas
import Testing
import TestLanes
import TestSupport
@testable import Calls
@testable import Realtime

/// Personas over whole calls in virtual time (`VirtualCallHarness`): the simulated callee speaks its
/// script with espeak-ng, the local engine hears it with Moonshine, and the stored result must be
/// the expected one — recognition, extraction and storage checked together, on any machine load.
/// The same calls run three times give the same transcripts and results, byte for byte. (`make
/// bench` runs the whole catalogue over real SIP calls and prints the share that matches.)
@Suite(.serialized, .tags(.virtualTime)) struct PersonaCallTests {
    static let chosen = ["refuses the first", "call back after one answer", "silent", "busy"]

    /// The chosen personas' calls, side by side in one virtual time: each call's record, and the run's figures.
    static func personaRun() async throws -> VirtualCallHarness.Run<[String]> {
        let personas = CalleePersona.catalogue.filter { chosen.contains($0.name) }
        #expect(personas.count == chosen.count)
        return try await VirtualCallHarness.run(tweak: { $0.retry.enabled = false; $0.maxConcurrentCalls = 4 }) { manager, store, clock in
            var ids: [String] = []
            for (i, persona) in personas.enumerated() {
                let request = CallHarness.seedRequest(answers: persona.script, questions: persona.questions, callee: "010 7000 000\(i)")
                ids.append(try await manager.create(request).outboundId)
            }
            let now = Date()
            var records: [String] = []
            for (id, persona) in zip(ids, personas) {
                let call = try await VirtualCallHarness.waitFor(store, id, clock: clock) { $0.state.isTerminal }
                let comparison = await persona.compare(state: call.state, answers: try store.answers(callID: id), now: now)
                let record = try await VirtualCallHarness.record(of: id, in: store)
                #expect(comparison.mismatches.isEmpty, "\(persona.name): \(comparison.mismatches)\n\(record)")
                #expect(comparison.statuses.total == persona.questions.count)
                records.append("# \(persona.name)\n" + record)
            }
            return records
        }
    }

    @Test(.timeLimit(.minutes(10))) func personasGetTheRightStoredResultsAndTheSameCallsTheSameTranscripts() async throws {
        var runs: [VirtualCallHarness.Run<[String]>] = []
        for _ in 0..<3 { runs.append(try await Self.personaRun()) }
        for (i, run) in runs.enumerated() {
            print("virtual-time persona run \(i + 1): \(run.virtual) of calls in \(run.real) (\(String(format: "%.1f", run.speedUp))× real time), stray wake-ups: \(run.strayWakeups)")
            #expect(run.strayWakeups == 0, "work escaped the virtual time in run \(i + 1)")
        }
        #expect(Set(runs.map(\.virtual)).count == 1, "the runs took different virtual times: \(runs.map(\.virtual))")
        let first = runs[0].value.joined(separator: "\n\n")
        for (i, run) in runs.enumerated().dropFirst() {
            #expect(run.value.joined(separator: "\n\n") == first, "run \(i + 1) differs from run 1")
        }
        print(first)
    }
}
