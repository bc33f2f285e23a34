import Bridge
import Foundation
import Realtime
import Testing
import TestSupport
@testable import Calls

/// Seed 000's scenario, offline: local engine, simulated callee, real SIP and RTP on 127.0.0.1.
@Suite(.serialized) struct OutboundCallTests {
    @Test func seed000ScenarioCompletesWithBothAnswers() async throws {
        try await CallHarness.run(rtpBase: 36000) { manager, store, ua in
            let created = try await manager.create(CallHarness.seedRequest(answers: ["Yes, I can attend the meeting.", "No, the original location is fine."]))
            #expect(created.state == .queued && created.callerNumber == "07012345678" && created.calleeNumber == "01098765432")
            let call = try await CallHarness.waitFor(store, created.outboundId) { $0.state.isTerminal }
            #expect(call.state == .completed, "ended as \(call.state) \(call.failureReason ?? "")")
            #expect(call.taskCompleted == true)
            let answers = try store.answers(callID: call.outboundId)
            #expect(answers.map(\.status) == [.answered, .answered], "\(answers)")
            #expect(answers.map(\.answerSummary) == ["yes", "no"])
            let transcript = try store.transcript(callID: call.outboundId)
            #expect(transcript.contains { $0.entry.speaker == .ai } && transcript.contains { $0.entry.speaker == .customer })
            #expect(transcript.first?.entry.text.hasPrefix("Hello, this is the AI assistant of ABC Company") == true)
            #expect(transcript.contains { $0.latencyMilliseconds != nil }, "turn latency is stored on agent lines")
            let states = try store.events().filter { $0.outboundId == call.outboundId }.map(\.type).filter { $0.hasPrefix("outbound_") && $0 != "outbound_progress" }
            #expect(states == ["outbound_queued", "outbound_dialing", "outbound_ringing", "outbound_connected", "outbound_completed"])
            #expect(call.aiTurns ?? 0 >= 3 && call.customerTurns == 2)
            let recording = try #require(try store.recordingPath(callID: call.outboundId))
            let wav = try WAVFile.read(URL(fileURLWithPath: recording))
            #expect(wav.channels == 2 && wav.sampleRate == 8000 && wav.data.count > 8000 * 4 * 5, "a stereo recording of the call")
            try await Task.sleep(for: .milliseconds(300))
            let stillLive = await manager.liveCount
            #expect(ua.portPool.inUseCount == 0 && stillLive == 0, "nothing outlives the call")
        }
    }
}
