import Foundation
import Realtime
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// Answering-machine detection, whole calls in virtual time: the simulated callee answers as a machine
/// (an espeak-ng greeting, then a 1 kHz beep) or as a person ("Hello?"); the local engine runs the call.
@Suite(.serialized, .tags(.virtualTime)) struct MachineDetectionCallTests {
    static func request(_ script: [String], action: String, callee: String) -> OutboundCallRequest {
        var request = CallHarness.seedRequest(answers: script, maxRetries: 0, questions: ["Can you attend?"], callee: callee)
        request.machineDetection = action
        return request
    }

    @Test func aMachineIsHungUpOnBeforeTheAgentSaysAWord() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            let id = try await manager.create(Self.request(["<voicemail long>"], action: "hangup", callee: "0109876601")).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(60)) { $0.state.isTerminal }
            #expect(call.state == .voicemail && call.failureReason == "answering_machine", "\(call.state) \(call.failureReason ?? "")")
            #expect(call.answeredBy == "machine" && (call.answeredByMs ?? .max) <= 3500, "\(String(describing: call.answeredBy)) \(String(describing: call.answeredByMs))")
            let agentLines = try await store.transcript(callID: id).filter { $0.entry.speaker == .ai }
            #expect(agentLines.isEmpty, "the greeting was held back: \(agentLines.map(\.entry.text))")
        }
    }

    /// A machine is retried like no answer: the person was not reached.
    @Test func aMachineIsRetriedLikeNoAnswer() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            var request = Self.request(["<voicemail short>"], action: "hangup", callee: "0109876605")
            request.maxRetries = 1
            let id = try await manager.create(request).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(60)) { $0.state.isTerminal && $0.attemptCount == 2 }
            #expect(call.state == .voicemail && call.lastOutcome == "voicemail")
            #expect(try await store.attempts(callID: id).map(\.outcome) == ["voicemail", "voicemail"])
        }
    }

    @Test func aMessageIsLeftAfterTheBeep() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            var request = Self.request(["<voicemail long>"], action: "leave_message", callee: "0109876602")
            request.voicemailMessage = "This is {display_name} about {purpose}. Please call us back."
            let id = try await manager.create(request).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(90)) { $0.state.isTerminal }
            #expect(call.state == .voicemailLeft && call.answeredBy == "machine", "\(call.state) \(call.failureReason ?? "")")
            let lines = try await store.transcript(callID: id).map(\.entry)
            let message = try #require(lines.first { $0.speaker == .ai }, "\(lines)")
            #expect(message.text == "This is ABC Company about tomorrow's 2 pm meeting. Please call us back.")
            // The greeting lasts about 12 s and the beep follows it: the message starts after the beep.
            #expect(message.timestamp >= 11, "the message began \(message.timestamp) s after answer")
            #expect(lines.filter { $0.speaker == .ai }.count == 1, "nothing else was said: \(lines)")
            let report = try #require(try await store.report(callID: id))
            #expect(report.tones.contains { $0.contains("beep") }, "the beep was heard: \(report.tones)")
        }
    }

    @Test func aPersonIsGreetedWithinMomentsAndTheCallGoesOn() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            let id = try await manager.create(Self.request(["<says Hello?>", "Yes, I can attend."], action: "hangup", callee: "0109876603")).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(90)) { $0.state.isTerminal }
            #expect(call.state == .completed, "\(call.state) \(call.failureReason ?? "")")
            #expect(call.answeredBy == "human" && (call.answeredByMs ?? .max) <= 3500, "\(String(describing: call.answeredBy)) after \(String(describing: call.answeredByMs)) ms")
            #expect(try await store.answers(callID: id).first?.status == .answered)
        }
    }

    @Test func aKoreanMachineIsRecognized() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            let id = try await manager.create(Self.request(["<voicemail ko>"], action: "hangup", callee: "0109876604")).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(60)) { $0.state.isTerminal }
            #expect(call.state == .voicemail && call.answeredBy == "machine", "\(call.state) \(String(describing: call.answeredBy))")
        }
    }
}
