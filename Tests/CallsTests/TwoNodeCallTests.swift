import Foundation
import Realtime
import Testing
@testable import Calls

/// Two whole call managers — each with its own SIP user agent, simulated callee and connections —
/// sharing one database file, as two nodes would: they share the queue and its global limit.
@Suite(.serialized) struct TwoNodeCallTests {
    /// A few seconds of call with the echo engine (it answers by playing back what it heard).
    static let script = ["<says Hello, who is this?>", "Fine, thank you.", "<hangup>"]

    @Test func twoNodesShareTheQueueDialEachCallOnceAndKeepTheGlobalLimit() async throws {
        let path = CallStoreTests.temporaryPath()
        try await CallHarness.run(rtpBase: 48000, store: try CallStore(path: path), tweak: {
            $0.nodeID = "node-a"
            $0.maxConcurrentCalls = 3
            $0.engineCallLimit = 2   // a can hold 2 at most, so b must dial some
        }, engines: { _ in EchoEngine() }) { managerA, store, _ in
            try await CallHarness.run(rtpBase: 48400, store: try CallStore(path: path), tweak: {
                $0.nodeID = "node-b"
                $0.maxConcurrentCalls = 3
            }, engines: { _ in EchoEngine() }) { managerB, _, _ in
                var ids: [String] = []
                for n in 0..<8 {
                    let manager = n.isMultiple(of: 2) ? managerA : managerB   // created through either node's API
                    ids.append(try await manager.create(CallHarness.seedRequest(answers: Self.script, questions: ["Can you attend?"],
                                                                                callee: "0109876541\(n)")).outboundId)
                }
                var mostBusy = 0
                var refusedCancel: String?
                let deadline = ContinuousClock.now.advanced(by: .seconds(150))
                while ContinuousClock.now < deadline {
                    let calls = try await OutboundCallTests.calls(ids, in: store)   // one snapshot of both nodes' calls
                    if refusedCancel == nil, let onA = calls.first(where: { $0.state == .connected && $0.nodeId == "node-a" }) {
                        // B does not run it, so B cannot end it: it says so instead of answering as if it had.
                        do {
                            try await managerB.cancel(id: onA.outboundId)
                            refusedCancel = "cancel returned as if it had ended the call"
                        } catch let CallManager.Failure.conflict(message) where !message.contains("has already ended") {   // ended since the read: try another
                            refusedCancel = message
                        } catch CallManager.Failure.conflict {}
                    }
                    mostBusy = max(mostBusy, calls.filter { $0.state.isLive || ($0.state == .queued && $0.nodeId != nil) }.count)
                    if calls.allSatisfy({ $0.state.isTerminal }) { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let calls = try await OutboundCallTests.calls(ids, in: store)
                #expect(calls.allSatisfy { $0.state == .completed }, "\(calls.map(\.state))")
                #expect(mostBusy <= 3 && mostBusy >= 2, "at most 3 calls busy over both nodes (saw \(mostBusy))")
                #expect(Set(calls.compactMap(\.nodeId)) == ["node-a", "node-b"], "both nodes dialed: \(calls.map(\.nodeId))")
                #expect(await managerA.mostLiveAtOnce <= 2)
                #expect(refusedCancel?.contains("on node node-a; cancel it through that node") == true, "\(String(describing: refusedCancel))")
                for call in calls {
                    let attempts = try await store.attempts(callID: call.outboundId)
                    #expect(call.attemptCount == 1 && attempts.count == 1, "dialed once: \(call.outboundId)")
                }
                #expect(Set(try await store.nodes().map(\.id)) == ["node-a", "node-b"], "both hold a lease")
            }
        }
    }
}
