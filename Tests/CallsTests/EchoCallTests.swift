import Bridge
import Foundation
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// Whole calls in virtual time on a line that returns the agent's voice (−10 dB, 150 ms later, as
/// a speakerphone might): with `engine.echo_cancellation` the agent's greeting does not stop
/// itself, and a caller who speaks over it still does. The same call without the canceller is the
/// control: there the echo is what the agent hears.
@Suite(.serialized, .tags(.virtualTime)) struct EchoCallTests {
    static func call(_ answers: [String], cancelling: Bool) async throws -> (CallRecord, CallReport, [String]) {
        let echo = try LineBed(condition: try LineCondition(echoDB: -10, echoDelayMilliseconds: 150), voices: [])
        return try await VirtualCallHarness.run(tweak: { $0.inProcessLine = echo; $0.echoCancellation = cancelling }) { manager, store, clock in
            let id = try await manager.create(CallHarness.seedRequest(answers: answers, questions: ["Can you attend the meeting on Friday?"])).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(120)) { $0.state.isTerminal }
            let report = try #require(try await store.report(callID: id))
            return (call, report, try await store.transcript(callID: id).map { "\($0.entry.speaker.rawValue): \($0.entry.text)" })
        }.value
    }

    /// Times the agent's audio was cut or held for something it heard.
    static func stops(_ report: CallReport) -> Int {
        report.interruptions.count + (report.interruptionCounts?.heldMs.count ?? 0)
    }

    @Test func anEchoedGreetingDoesNotStopItself() async throws {
        let silent = ["<silence>", "<hangup>"]
        let (_, uncancelled, heardBefore) = try await Self.call(silent, cancelling: false)
        let (call, report, lines) = try await Self.call(silent, cancelling: true)
        print("EchoCallTests: without the canceller \(Self.stops(uncancelled)) stops \(heardBefore); with it \(Self.stops(report)) \(lines)")
        #expect(Self.stops(uncancelled) > 0 || heardBefore.contains { $0.hasPrefix("customer:") }, "the control: uncancelled, the echo reaches the agent")
        #expect(Self.stops(report) == 0, "the agent stopped for its own echo: \(report.interruptions) \(String(describing: report.interruptionCounts))")
        #expect(!lines.contains { $0.hasPrefix("customer:") }, "nothing of the agent's taken for the caller's words: \(lines)")
        #expect(call.state == .completed, "\(call.state) \(call.failureReason ?? "")")
    }

    @Test func aCallerSpeakingOverTheEchoStillStopsTheAgent() async throws {
        let (_, report, lines) = try await Self.call(["<says Sorry, who is calling, please?>", "Yes, I will."], cancelling: true)
        print("EchoCallTests: over the echo \(report.interruptions) \(String(describing: report.interruptionCounts)) \(lines)")
        #expect(Self.stops(report) > 0, "the caller over the greeting was not heard: \(lines)")
        #expect(lines.contains { $0.hasPrefix("customer:") && $0.lowercased().contains("calling") }, "\(lines)")
    }
}
