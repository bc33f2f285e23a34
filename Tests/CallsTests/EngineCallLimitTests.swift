import Bridge
import Foundation
import Testing
import TestSupport
@testable import Calls

/// The local engine shares the machine's cores: beyond `engine.local.max_calls` an inbound INVITE
/// gets 503, rather than every call going silent (outbound calls wait in the queue: CallLimitTests).
@Suite(.serialized) struct EngineCallLimitTests {
    @Test(.enabled(if: Sipp.isInstalled)) func anInboundCallBeyondTheEngineLimitGets503() async throws {
        try await CallHarness.run(tweak: { $0.engineAdmission = .fixed(1) }) { manager, store, ua in
            let port = await ua.localPort
            // One call the agent is busy with (the callee stays silent until asked again, then hangs up) …
            let busy = try await manager.create(CallHarness.seedRequest(answers: ["<silence>", "<hangup>"], questions: ["Can you attend?"])).outboundId
            _ = try await CallHarness.waitFor(store, busy) { $0.state == .connected }
            // … so a caller is refused at once with 503, nothing answered, nothing stored.
            let refused = try Sipp(scenario: SippCaller.invite(expecting: 503),
                                   arguments: ["127.0.0.1:\(port)", "-s", "0212345678", "-i", "127.0.0.1"])
            let result = await refused.wait()
            #expect(result.status == 0, "expected 503: \(result.output.suffix(1500))")
            #expect(try await store.calls(inStates: CallState.allCases).filter { $0.direction == .inbound }.isEmpty)
            _ = try await CallHarness.waitFor(store, busy) { $0.state.isTerminal }
            try #require(await manager.waitUntilNoLiveCalls(timeout: .seconds(30)), "the busy call is still live 30 s after it ended")
            // The agent is free again: the next caller is answered (sipp's own caller: INVITE, talk 1 s, BYE).
            let answered = try Sipp(arguments: ["-sn", "uac", "127.0.0.1:\(port)", "-s", "0212345678", "-i", "127.0.0.1",
                                                "-mp", "\(freeSippMediaPort())", "-d", "1000"])
            let result2 = await answered.wait()
            #expect(result2.status == 0, "\(result2.output.suffix(1500))")
        }
    }

    @Test func theLimitStartsAtTwoAndAHalfCallsPerCoreAndMayGrowToFifteen() {
        var local = VoiceBridgeConfig.Engine.Local()
        #expect(local.admission(cores: 2) == CallAdmission.Settings(most: 30, start: 5, turnLatencyGoalMilliseconds: 800))
        #expect(local.admission(cores: 1).start == 2 && local.admission(cores: 8).start == 20 && local.admission(cores: 8).most == 120)
        // The operator's own figure is where it starts and the most it may reach.
        local.maxCalls = 3
        #expect(local.admission(cores: 8) == CallAdmission.Settings(most: 3, start: 3, turnLatencyGoalMilliseconds: 800))
        // No goal: a fixed limit.
        local.turnLatencyGoalMilliseconds = 0
        #expect(local.admission(cores: 8) == .fixed(3))
        local.maxCalls = 0
        #expect(local.admission(cores: 2) == .fixed(5))
    }
}
