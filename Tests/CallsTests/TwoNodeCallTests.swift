import Foundation
import Realtime
import Testing
import TestSupport
@testable import Calls

/// Two whole call managers — each with its own SIP user agent, simulated callee and connections —
/// sharing one database (a SQLite file, or PostgreSQL), as two nodes would: they share the queue
/// and its global limit.
@Suite(.serialized) struct TwoNodeCallTests {
    /// A few seconds of call with the echo engine (it answers by playing back what it heard).
    static let script = ["<says Hello, who is this?>", "Fine, thank you.", "<hangup>"]

    @Test(arguments: StoreBackend.allCases)
    func twoNodesShareTheQueueDialEachCallOnceAndKeepTheGlobalLimit(backend: StoreBackend) async throws {
        let path = try await backend.newLocation()
        try await CallHarness.run(store: try await CallStore.open(path), tweak: {
            $0.nodeID = "node-a"
            $0.maxConcurrentCalls = 3
            $0.engineAdmission = .fixed(2)   // a can hold 2 at most, so b must dial some
        }, engines: { _ in EchoEngine() }) { managerA, store, _ in
            // Which node claims a due call is a race between their wake-ups; on a loaded machine b
            // once won every one (make test-under-load). So a claims first, alone: it takes its
            // engine limit of the first four calls before b starts, and b must take the rest.
            var created: [String] = []
            for n in 0..<4 {
                created.append(try await managerA.create(CallHarness.seedRequest(answers: Self.script, questions: ["Can you attend?"],
                                                                                 callee: "0109876541\(n)")).outboundId)
            }
            let first = created
            let claimedByA = ContinuousClock.now.advanced(by: .seconds(60))
            while try await OutboundCallTests.calls(first, in: store).filter({ $0.nodeId == "node-a" }).count < 2, ContinuousClock.now < claimedByA {
                await store.waitForEvents(timeout: .seconds(1))   // the dialing that follows a claim appends an event
            }
            try await CallHarness.run(store: try await CallStore.open(path), tweak: {
                $0.nodeID = "node-b"
                $0.maxConcurrentCalls = 3
            }, engines: { _ in EchoEngine() }) { managerB, _, _ in
                var ids = first
                for n in 4..<8 {
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
                #expect(calls.allSatisfy { $0.state == .completed }, "\(calls.map { "\($0.state.rawValue) \($0.nodeId ?? "-") \($0.failureReason ?? "")" })")
                #expect(mostBusy <= 3 && mostBusy >= 2, "at most 3 calls busy over both nodes (saw \(mostBusy))")
                #expect(Set(calls.compactMap(\.nodeId)) == ["node-a", "node-b"], "both nodes dialed: \(calls.map(\.nodeId))")
                #expect(await managerA.mostLiveAtOnce <= 2)
                #expect(refusedCancel?.contains("on node node-a; cancel it through that node") == true, "\(String(describing: refusedCancel))")
                // Each call dialed by one node at a time: its attempts one after the other, each but the
                // last ended by an outcome that is tried again, the last completed. (Under load a
                // callee's answer once came after the 10-s ring timeout: a second attempt, rightly.)
                for call in calls {
                    let attempts = try await store.attempts(callID: call.outboundId)
                    let sequential = zip(attempts, attempts.dropFirst()).allSatisfy { before, after in
                        ["no_answer", "busy"].contains(before.outcome ?? "") && (before.endedAt.map { $0 <= after.startedAt } ?? false)
                    }
                    #expect(call.attemptCount == attempts.count && sequential && attempts.last?.outcome == "completed",
                            "dialed once at a time: \(call.outboundId) \(attempts.map { "\($0.outcome ?? "open") \($0.startedAt)–\(String(describing: $0.endedAt))" })")
                }
                #expect(Set(try await store.nodes.list().map(\.id)) == ["node-a", "node-b"], "both hold a lease")
            }
        }
    }

    /// A node back from a stall past its lease (a stopped process, a paused VM) hangs up the calls
    /// a survivor took from it as soon as its heartbeat tells it — not when the conversation would
    /// have ended — and what its ending call then writes is refused: the survivor's outcome and
    /// its claim on the retry stand.
    @Test(arguments: StoreBackend.allCases)
    func aNodeBackFromAStallHangsUpTheCallsTakenFromIt(backend: StoreBackend) async throws {
        let path = try await backend.newLocation()
        try await CallHarness.run(store: try await CallStore.open(path), tweak: {
            $0.nodeID = "node-a"
            $0.leaseSeconds = 1   // a heartbeat every 0.2 s
        }, engines: { _ in EchoEngine() }) { manager, store, _ in
            let long = ["<says Hello, who is this?>"] + Array(repeating: "Fine, thank you.", count: 30) + ["<hangup>"]
            let id = try await manager.create(CallHarness.seedRequest(answers: long, questions: ["Can you attend?"])).outboundId
            _ = try await CallHarness.waitFor(store, id, timeout: .seconds(30)) { $0.state == .connected }
            // The survivor's view of a minute later: a's heartbeat is old, so b closes the call as
            // node_lost, queues the retry the policy asks for, and claims it.
            let b = try await CallStore.open(path)
            let later = Date().addingTimeInterval(60)
            try await b.nodes.register("node-b", now: later.addingTimeInterval(60))   // b stays fresh in a's eyes
            let takeovers = try await b.takeOverLostNodes(survivor: "node-b", lease: 15, now: later) { _ in later }
            #expect(takeovers.map(\.closed) == [[id]])
            #expect(try await b.claimDueCalls(node: "node-b", room: 1, maxConcurrent: 5, dialableCampaigns: [], now: later).map(\.outboundId) == [id])

            #expect(await manager.waitUntilNoLiveCalls(timeout: .seconds(10)), "a hung up the call it no longer holds")
            // a's writes about the ended call, if any got through, are in: its attempt is over.
            let call = try #require(try await store.call(id: id))
            #expect(call.state == .queued && call.nodeId == "node-b" && call.lastOutcome == "failed",
                    "b's outcome and claim stand: \(call.state) on \(String(describing: call.nodeId))")
            // The conversation did happen: its transcript and answers are still stored. Its state is not a's to write.
            let states = try await store.events().filter { $0.outboundId == id }.map(\.type)
                .filter { CallState(rawValue: String($0.dropFirst("outbound_".count))) != nil }
            #expect(states.suffix(2) == ["outbound_failed", "outbound_queued"], "no state from a after the takeover: \(states)")
        }
    }
}
