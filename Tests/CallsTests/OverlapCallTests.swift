import Dialogue
import Foundation
import Realtime
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// The caller speaking over the agent's greeting, a whole call in virtual time with the local engine:
/// a backchannel does not stop the greeting, and buzz on the line (held, no words in it) lets it
/// play on from where it was held. (The simulated callee speaks its first entry at pickup, over
/// the greeting.)
@Suite(.serialized, .tags(.virtualTime)) struct OverlapCallTests {
    static let question = "Can you attend the meeting on Friday?"

    /// The call to its end; its report, transcript and answers.
    static func call(opening: String, tweak: @escaping (inout CallManager.Settings) -> Void = { _ in }) async throws
        -> (CallRecord, CallReport, [String], [TaskTracker.Answer]) {
        try await VirtualCallHarness.run(tweak: tweak) { manager, store, clock in
            let id = try await manager.create(CallHarness.seedRequest(answers: [opening, "Yes, I will."], questions: [question])).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(90)) { $0.state.isTerminal }
            let report = try #require(try await store.report(callID: id))
            return (call, report, try await store.transcript(callID: id).map(\.entry.text), try await store.answers(callID: id))
        }.value
    }

    /// ("Okay.": espeak-ng's "Mm-hmm." is long enough to hold the agent, and reaches the recognizer
    /// over the 8 kHz line as "Amend them," — an aside that answers nothing, so the agent plays on
    /// after ~0.8 s held: the personas in `make bench` say it.)
    @Test func aBackchannelDuringTheGreetingDoesNotStopIt() async throws {
        let (call, report, lines, answers) = try await Self.call(opening: "<says Okay.>")
        #expect(call.state == .completed, "\(call.state) \(call.failureReason ?? "")")
        let counts = try #require(report.interruptionCounts)
        print("OverlapCallTests: backchannel \(counts) \(lines)")
        #expect(counts.backchannel == 1 && counts.confirmed == 0 && report.interruptions.isEmpty, "\(counts) \(lines)")
        #expect(counts.heldMs.isEmpty, "shorter than barge_in.min_ms: the greeting played on, never held (\(counts.heldMs) ms)")
        #expect(lines.contains { $0.hasPrefix("[Backchannel: ") }, "\(lines)")
        #expect(answers.first?.status == .answered, "the dialogue went on as if nothing was said: \(answers) \(lines)")
    }

    @Test func buzzOverTheAgentHoldsItThenItPlaysOn() async throws {
        // The energy detector: buzz is what it takes for a voice (Silero does not).
        let (call, report, lines, answers) = try await Self.call(opening: "<hum 900>") { $0.neuralVAD = nil }
        #expect(call.state == .completed, "\(call.state) \(call.failureReason ?? "")")
        let counts = try #require(report.interruptionCounts)
        print("OverlapCallTests: buzz \(counts) \(lines)")
        #expect(counts.resumed == 1 && counts.confirmed == 0 && report.interruptions.isEmpty, "\(counts) \(lines)")
        // Held at 500 ms of the 900 ms buzz; played on within 1 s of its end.
        #expect(counts.heldMs.count == 1 && counts.heldMs[0] <= 400 + 1000, "held \(counts.heldMs) ms")
        #expect(answers.first?.status == .answered, "\(answers) \(lines)")
    }
}
