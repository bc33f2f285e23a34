import Foundation
import Realtime
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// A call screener on the line, whole calls in virtual time: the simulated callee answers as the
/// phone's screener (espeak-ng), the local engine runs the call over SIP. The screener's question
/// gets who is calling and why; the agent waits silently through its hold for the person, who is
/// greeted and asked; a screener that turns the call away, or a line that ends while the agent
/// waits, is `screened_out`.
@Suite(.serialized, .tags(.virtualTime)) struct CallScreenerCallTests {
    static let prompt = "<screens Hi, the person you're calling is using a screening service. Go ahead and say your name and why you're calling.>"

    @Test func thePersonTheScreenerPutsThroughIsGreetedAndAnswers() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            let script = [Self.prompt,
                          "Thanks, please stay on the line. <pause 4000> Hello, this is Dana.",
                          "Yes, I can attend."]
            let id = try await manager.create(CallHarness.seedRequest(answers: script, maxRetries: 0, questions: ["Can you attend?"], callee: "0109877701")).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(120)) { $0.state.isTerminal }
            let lines = try await store.transcript(callID: id).map(\.entry)
            #expect(call.state == .completed, "\(call.state) \(call.failureReason ?? ""): \(lines.map { "\($0.speaker): \($0.text)" })")
            let agent = lines.filter { $0.speaker == .ai }.map(\.text)
            #expect(agent.contains("This is the AI assistant of ABC Company, calling about tomorrow's 2 pm meeting."), "who and why, to the screener: \(lines.map { "\($0.speaker): \($0.text)" })")
            #expect(agent.filter { $0.hasSuffix("Can you attend?") }.count == 2, "the opening, again for the person: \(agent)")
            let answer = try #require(try await store.answers(callID: id).first)
            #expect(answer.status == .answered && answer.answerSummary == "yes", "\(answer)")
            #expect(call.summary?.contains("A call screener answered first; the person came on the line.") == true, "\(call.summary ?? "")")
        }
    }

    @Test func aScreenerThatTurnsTheCallAwayIsScreenedOut() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            let script = [Self.prompt, "Sorry, the person you're calling can't take your call right now. <hangup>"]
            let id = try await manager.create(CallHarness.seedRequest(answers: script, maxRetries: 2, questions: ["Can you attend?"], callee: "0109877702")).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(120)) { $0.state.isTerminal }
            let lines = try await store.transcript(callID: id).map(\.entry)
            #expect(call.state == .screenedOut && call.failureReason == "call_screener", "\(call.state) \(call.failureReason ?? "")")
            #expect(lines.last?.text.contains("can't take your call") == true, "the screener's words ended it: \(lines.map(\.text))")
            #expect(call.attemptCount == 1, "not retried: the callee turned the call away")
            #expect(try await store.answers(callID: id).first?.status != .answered)
        }
    }

    @Test func aLineThatEndsWhileTheAgentWaitsIsScreenedOut() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            let script = [Self.prompt, "<hangup>"]
            let id = try await manager.create(CallHarness.seedRequest(answers: script, maxRetries: 0, questions: ["Can you attend?"], callee: "0109877703")).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(120)) { $0.state.isTerminal }
            #expect(call.state == .screenedOut, "\(call.state) \(call.failureReason ?? "")")
        }
    }
}
