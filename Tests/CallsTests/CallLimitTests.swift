import Bridge
import Foundation
import Pipeline
import Realtime
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// The limits on a call and on the calls at once, over whole calls in virtual time: never more
/// live than `max_concurrent_calls` nor than the local engine can hold (the rest wait in the
/// queue), and a call that reaches its maximum duration closes politely.
@Suite(.serialized, .tags(.virtualTime)) struct CallLimitTests {
    @Test func neverMoreThanMaxConcurrentCallsLive() async throws {
        _ = try await VirtualCallHarness.run(tweak: { $0.maxConcurrentCalls = 3 }) { manager, store, clock in
            var ids: [String] = []
            for n in 0..<10 { ids.append(try await manager.create(CallHarness.seedRequest(answers: ["<hangup>"], questions: ["Can you attend?"], callee: "0109876540\(n)")).outboundId) }
            var mostConnected = 0
            let deadline = clock.now.advanced(by: .seconds(150))
            while clock.now < deadline {
                let calls = try await OutboundCallTests.calls(ids, in: store)
                mostConnected = max(mostConnected, calls.filter { $0.state.isLive }.count)
                if calls.allSatisfy({ $0.state.isTerminal }) { break }
                try await clock.sleep(for: .milliseconds(50))
            }
            let calls = try await OutboundCallTests.calls(ids, in: store)
            #expect(calls.allSatisfy { $0.state == .completed }, "\(calls.map(\.state))")
            #expect(mostConnected <= 3 && mostConnected >= 2, "at most 3 live at once (saw \(mostConnected))")
            #expect(await manager.mostLiveAtOnce <= 3)
            try await clock.sleep(for: .milliseconds(300))
            #expect(await manager.liveCount == 0, "nothing outlives the calls")
        }
    }

    @Test func outboundCallsBeyondTheEngineLimitWaitInTheQueue() async throws {
        _ = try await VirtualCallHarness.run(tweak: { $0.maxConcurrentCalls = 5; $0.engineAdmission = .fixed(1) }) { manager, store, clock in
            var ids: [String] = []
            for n in 0..<3 {
                ids.append(try await manager.create(CallHarness.seedRequest(answers: ["<hangup>"], questions: ["Can you attend?"], callee: "0109876541\(n)")).outboundId)
            }
            for id in ids { _ = try await VirtualCallHarness.waitFor(store, id, clock: clock) { $0.state.isTerminal } }
            #expect(try await OutboundCallTests.calls(ids, in: store).map(\.state) == [.completed, .completed, .completed])
            #expect(await manager.mostLiveAtOnce == 1, "one call at a time although max_concurrent_calls is 5")
        }
    }

    @Test func maxCallDurationEndsWithAClosingLineThenTheCall() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            var request = CallHarness.seedRequest(questions: ["Can you attend?", "Does the place need to change?", "Who else is coming?", "Is a projector needed?", "Should we order lunch?"])
            request.maxDuration = 10
            let created = try await manager.create(request)
            let call = try await VirtualCallHarness.waitFor(store, created.outboundId, clock: clock) { $0.state.isTerminal }
            #expect(call.state == .completed && call.failureReason == "max_call_duration")
            #expect(call.taskCompleted == false)
            let lines = try await store.transcript(callID: call.outboundId).filter { $0.entry.speaker == .ai }.map(\.entry.text)
            #expect(lines.last == "Thank you for your time. Have a nice day.", "\(lines)")
            #expect((call.durationSeconds ?? 0) >= 10 && (call.durationSeconds ?? 99) < 30)
        }
    }
}
