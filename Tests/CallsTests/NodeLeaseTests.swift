import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Calls

/// Several nodes on one database: claims, the global concurrency limit, leases and takeover. Two
/// `CallStore`s opened on one file stand for two processes (each its own connections).
@Suite struct NodeLeaseTests {
    static func queuedCalls(_ count: Int, in store: CallStore) async throws -> [String] {
        var ids: [String] = []
        for n in 0..<count {
            var call = CallStoreTests.sampleCall("ob-0000001\(n)")
            call.calleeNumber = "0109876540\(n)"
            call.createdAt = Date(timeIntervalSince1970: 1_700_000_000 + Double(n))
            try await store.insert(call)
            ids.append(call.outboundId)
        }
        return ids
    }

    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// Nodes a and b, each with its own store on one file and a lease from `t0`, and `count`
    /// queued calls, all claimed by a.
    static func callsClaimedByA(_ count: Int, on backend: StoreBackend) async throws -> (a: CallStore, b: CallStore, ids: [String]) {
        let path = try await backend.newLocation()
        let a = try await CallStore.open(path), b = try await CallStore.open(path)
        try await a.nodes.register("a", now: t0)
        try await b.nodes.register("b", now: t0)
        let ids = try await queuedCalls(count, in: a)
        _ = try await a.claimDueCalls(node: "a", room: count, maxConcurrent: 10, dialableCampaigns: [], now: t0)
        return (a, b, ids)
    }

    @Test(arguments: StoreBackend.allCases)
    func twoNodesRacingForTheQueueNeverClaimOneCallTwiceAndStayUnderTheGlobalLimit(backend: StoreBackend) async throws {
        let path = try await backend.newLocation()
        let a = try await CallStore.open(path), b = try await CallStore.open(path)
        let ids = try await Self.queuedCalls(10, in: a)
        // Both nodes ask for more than the limit, at once, many times.
        async let fromA = (0..<20).asyncFlatMap { _ in try await a.claimDueCalls(node: "a", room: 10, maxConcurrent: 4, dialableCampaigns: []) }
        async let fromB = (0..<20).asyncFlatMap { _ in try await b.claimDueCalls(node: "b", room: 10, maxConcurrent: 4, dialableCampaigns: []) }
        let (claimedA, claimedB) = try await (fromA, fromB)
        let claimed = claimedA.map(\.outboundId) + claimedB.map(\.outboundId)
        #expect(claimed.count == 4 && Set(claimed).count == 4, "4 claims in all, none twice: \(claimed)")
        #expect(claimed.sorted() == Array(ids.prefix(4)), "oldest first")
        let stored = try await a.calls(inStates: [.queued])
        #expect(stored.filter { $0.nodeId == "a" }.map(\.outboundId).sorted() == claimedA.map(\.outboundId).sorted())
        #expect(stored.filter { $0.nodeId == "b" }.map(\.outboundId).sorted() == claimedB.map(\.outboundId).sorted())

        // A claimed call dialed and ended frees its place, for whichever node asks next.
        let first = claimed[0]
        try await a.transition(id: first, to: .dialing, from: .queued)
        #expect(try await b.claimDueCalls(node: "b", room: 10, maxConcurrent: 4, dialableCampaigns: []).isEmpty, "dialing still holds its place")
        try await a.transition(id: first, to: .busy, reason: "busy")
        let next = try await b.claimDueCalls(node: "b", room: 10, maxConcurrent: 4, dialableCampaigns: [])
        #expect(next.map(\.outboundId) == [ids[4]] && next.first?.nodeId == "b")
        // A node's own room limits it too; a released claim goes back to the queue.
        try await b.releaseClaim(id: ids[4], node: "b")
        try await a.releaseClaim(id: ids[4], node: "a")   // not a's: nothing happens
        #expect(try await a.call(id: ids[4])?.nodeId == nil)
        #expect(try await a.claimDueCalls(node: "a", room: 1, maxConcurrent: 100, dialableCampaigns: []).map(\.outboundId) == [ids[4]])
    }

    /// Calls that end together free several places at once: the node polling first takes its share
    /// (free ÷ nodes, rounded up), not all of them, so the other node's next poll finds work. With
    /// one node, one claim takes every free place.
    @Test(arguments: StoreBackend.allCases)
    func aClaimTakesThisNodesShareOfTheFreePlaces(backend: StoreBackend) async throws {
        let path = try await backend.newLocation()
        let a = try await CallStore.open(path), b = try await CallStore.open(path)
        try await a.nodes.register("a")
        _ = try await Self.queuedCalls(8, in: a)
        #expect(try await a.claimDueCalls(node: "a", room: 10, maxConcurrent: 4, dialableCampaigns: []).count == 4, "alone, a takes all 4")
        _ = try await a.sqlWrite { try $0.execute("UPDATE calls SET node_id = NULL WHERE node_id = 'a'") }
        try await b.nodes.register("b")
        let turns = [("a", a), ("a", a), ("b", b), ("b", b)]
        var taken: [Int] = []
        for (node, store) in turns { taken.append(try await store.claimDueCalls(node: node, room: 10, maxConcurrent: 4, dialableCampaigns: []).count) }
        #expect(taken == [2, 1, 1, 0], "a polls twice before b: 2 of 4, then 1 of 2; b still gets the last place")
        #expect(try await a.claimDueCalls(node: "a", room: 10, maxConcurrent: 3, dialableCampaigns: []).isEmpty, "a limit lowered under what is busy frees nothing")
    }

    @Test(arguments: StoreBackend.allCases)
    func onlyDueCallsOfDialableCampaignsAreClaimedBestFirst(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let now = Date()
        var calls = (0..<5).map { n in
            var call = CallStoreTests.sampleCall("ob-0000002\(n)")
            call.calleeNumber = "0109876542\(n)"
            call.createdAt = now.addingTimeInterval(Double(n) - 100)
            return call
        }
        calls[0].scheduledAt = now.addingTimeInterval(60)     // later
        calls[1].nextAttemptAt = now.addingTimeInterval(60)   // waiting for its retry
        calls[2].campaignId = "cp-paused"
        calls[3].campaignId = "cp-running"
        calls[4].priority = 9                                  // newest, but first
        for call in calls { try await store.insert(call) }
        let claimed = try await store.claimDueCalls(node: "a", room: 10, maxConcurrent: 10, dialableCampaigns: ["cp-running"], now: now)
        #expect(claimed.map(\.outboundId) == [calls[4].outboundId, calls[3].outboundId])
        let later = try await store.claimDueCalls(node: "a", room: 10, maxConcurrent: 10, dialableCampaigns: ["cp-running"], now: now.addingTimeInterval(61))
        #expect(later.map(\.outboundId) == [calls[0].outboundId, calls[1].outboundId])
    }

    /// Issue 57 item 3: the call manager sleeps until the next queued call's time instead of looking
    /// every 100 ms; the store says when that is (a call's scheduled time or its retry's).
    @Test(arguments: StoreBackend.allCases)
    func theNextQueuedCallsTimeIsItsScheduleOrItsRetry(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try await store.nextQueuedCallTime(after: now) == nil, "nothing queued")
        var calls = (0..<4).map { n in
            var call = CallStoreTests.sampleCall("ob-0000003\(n)")
            call.calleeNumber = "0109876543\(n)"
            return call
        }
        calls[0].scheduledAt = now.addingTimeInterval(-5)     // due already: not a wake-up
        calls[1].scheduledAt = now.addingTimeInterval(90)
        calls[2].nextAttemptAt = now.addingTimeInterval(40)   // a retry, sooner
        calls[3].scheduledAt = now.addingTimeInterval(10)     // sooner still, but claimed below
        for call in calls { try await store.insert(call) }
        _ = try await store.claimDueCalls(node: "a", room: 1, maxConcurrent: 10, dialableCampaigns: [], now: now.addingTimeInterval(11))
        let claimed = try await store.call(id: calls[3].outboundId)
        let expected = claimed?.nodeId == "a" ? 40.0 : 10.0   // the claim took the best due call: priority, then age
        let next = try #require(try await store.nextQueuedCallTime(after: now))
        #expect(abs(next.timeIntervalSince(now) - expected) < 0.01, "\(next.timeIntervalSince(now)) s after now")
    }

    @Test(arguments: StoreBackend.allCases)
    func aRetryOrAnOperatorsRetryPutsTheCallBackForAnyNode(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let ids = try await Self.queuedCalls(1, in: store)
        _ = try await store.claimDueCalls(node: "a", room: 1, maxConcurrent: 5, dialableCampaigns: [])
        try await store.transition(id: ids[0], to: .dialing, from: .queued)
        try await store.endAttempt(id: ids[0], in: .noAnswer, reason: "no_answer", retryAt: Date(timeIntervalSinceNow: -1))
        let call = try #require(try await store.call(id: ids[0]))
        #expect(call.state == .queued && call.nodeId == nil && call.lastOutcome == "no_answer")
        #expect(try await store.claimDueCalls(node: "b", room: 1, maxConcurrent: 5, dialableCampaigns: []).map(\.outboundId) == ids)
    }

    @Test(arguments: StoreBackend.allCases)
    func aLostNodesLiveCallsEndAsNodeLostAndItsClaimsGoBack(backend: StoreBackend) async throws {
        let (a, survivor, ids) = try await Self.callsClaimedByA(4, on: backend)
        let t0 = Self.t0
        try await a.transition(id: ids[0], to: .dialing, from: .queued, now: t0)
        try await a.transition(id: ids[1], to: .dialing, from: .queued, now: t0)
        try await a.transition(id: ids[1], to: .connected, now: t0)
        try await a.transition(id: ids[2], to: .dialing, from: .queued, now: t0)
        try await a.transition(id: ids[2], to: .busy, reason: "busy", now: t0)
        // ids[3]: claimed by a, never dialed. Then a goes silent; b keeps renewing.
        let retried = ids[1]
        let policy: @Sendable (CallRecord) -> Date? = { $0.outboundId == retried ? t0.addingTimeInterval(60) : nil }
        try await survivor.nodes.heartbeat(node: "b", now: t0.addingTimeInterval(10))
        #expect(try await survivor.takeOverLostNodes(survivor: "b", lease: 15, now: t0.addingTimeInterval(10), retryAt: policy).isEmpty,
                "not before the lease runs out")
        try await survivor.nodes.heartbeat(node: "b", now: t0.addingTimeInterval(16))
        let takeovers = try await survivor.takeOverLostNodes(survivor: "b", lease: 15, now: t0.addingTimeInterval(16), retryAt: policy)
        #expect(takeovers == [.init(node: "a", closed: [ids[0], ids[1]], released: [ids[3]])])

        let dialing = try #require(try await survivor.call(id: ids[0]))
        #expect(dialing.state == .failed && dialing.failureReason == "node_lost" && dialing.nodeId == "a", "the record keeps where it ran")
        let connected = try #require(try await survivor.call(id: ids[1]))
        #expect(connected.state == .queued && connected.lastOutcome == "failed" && connected.nodeId == nil, "the policy retries it, on any node")
        #expect(try await survivor.attempts(callID: ids[1]).map(\.failureReason) == ["node_lost"])
        #expect(try await survivor.call(id: ids[2])?.state == .busy, "an ended call is left alone")
        #expect(try await survivor.call(id: ids[3])?.nodeId == nil)
        let failed = try await survivor.events().filter { $0.outboundId == ids[0] && $0.type == "outbound_failed" }
        #expect(failed.count == 1 && failed[0].payload.contains("node_lost"))
        #expect(try await survivor.nodes.list().map(\.id) == ["b"])
        #expect(try await survivor.takeOverLostNodes(survivor: "b", lease: 15, now: t0.addingTimeInterval(17), retryAt: policy).isEmpty,
                "taken over once")

        // The lost node comes back: its heartbeat says it lost its lease, and it is a node again.
        #expect(try await a.nodes.heartbeat(node: "a", now: t0.addingTimeInterval(20)) == false)
        #expect(try await a.nodes.heartbeat(node: "a", now: t0.addingTimeInterval(21)) == true)
        #expect(try await survivor.nodes.list().map(\.id) == ["a", "b"])
    }

    /// A heartbeat stamps the time its transaction writes, not the time it was asked for. Here it
    /// waits behind another node's write (the writers' lock) while the clock moves 10 s on: stamped
    /// when asked, it would land 10 s old, past any lease, and a survivor looking just then would
    /// take a live node over.
    @Test(arguments: StoreBackend.allCases)
    func aHeartbeatWaitingBehindAnotherWriteStampsTheTimeItIsWritten(backend: StoreBackend) async throws {
        let path = try await backend.newLocation()
        let a = try await CallStore.open(path), b = try await CallStore.open(path)
        try await b.nodes.register("b", now: Self.t0)
        let clock = SettableDate(Self.t0)
        let (writing, startedWriting) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let (asked, askedForHeartbeat) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let release = DispatchSemaphore(value: 0)
        let otherWrite = Task {
            try await a.nodes.sqlWrite { sql in
                try sql.execute("UPDATE nodes SET heartbeat_at = heartbeat_at")   // holds the writers' lock until released
                startedWriting.yield()
                release.wait()
            }
        }
        for await _ in writing { break }
        let heartbeat = Task {
            askedForHeartbeat.yield()
            return try await b.nodes.heartbeat(node: "b", now: clock.date)
        }
        for await _ in asked { break }
        clock.date = Self.t0.addingTimeInterval(10)
        release.signal()
        try await otherWrite.value
        #expect(try await heartbeat.value, "b's row was there")
        let stamped = try await b.nodes.list().first { $0.id == "b" }?.heartbeatAt
        #expect(stamped == Self.t0.addingTimeInterval(10))
    }

    /// A lost node's inbound call ends `failed / node_lost` and stays ended, under a policy that
    /// retries failures (the cluster suite's): queued again, it would have been dialled as an
    /// outbound call to the caller (seen once when the node died before storing the call's end).
    @Test(arguments: StoreBackend.allCases)
    func aLostNodesInboundCallIsNeverQueuedAgain(backend: StoreBackend) async throws {
        let (a, survivor, ids) = try await Self.callsClaimedByA(1, on: backend)
        let t0 = Self.t0
        try await a.transition(id: ids[0], to: .dialing, from: .queued, now: t0)
        try await a.transition(id: ids[0], to: .connected, now: t0)
        var inbound = CallStoreTests.sampleCall(CallRecord.newID(direction: .inbound))
        inbound.direction = .inbound
        inbound.state = .connected
        inbound.nodeId = "a"
        inbound.attemptCount = 1
        try await a.insert(inbound)
        var retriesFailures = VoiceBridgeConfig.Outbound.Retry()
        retriesFailures.retryOn = [.failed]
        let t1 = t0.addingTimeInterval(16)
        try await survivor.nodes.heartbeat(node: "b", now: t1)
        let takeovers = try await survivor.takeOverLostNodes(survivor: "b", lease: 15, now: t1) { [retriesFailures] in
            CallManager.retryTime(for: $0, endingIn: .failed, policy: retriesFailures, now: t1)
        }
        #expect(takeovers.first.map { Set($0.closed) } == [ids[0], inbound.outboundId])
        #expect(try await survivor.call(id: ids[0])?.state == .queued, "the outbound call is retried")
        let caller = try #require(try await survivor.call(id: inbound.outboundId))
        #expect(caller.state == .failed && caller.failureReason == "node_lost", "\(caller.state) \(caller.failureReason ?? "-")")
        let dueAgain = t1.addingTimeInterval(TimeInterval(retriesFailures.retryIntervalSeconds) + 1)
        #expect(try await survivor.claimDueCalls(node: "b", room: 5, maxConcurrent: 10, dialableCampaigns: [], now: dueAgain).map(\.outboundId) == [ids[0]])
    }

    /// The fence: a node that stalled past its lease (SIGSTOP, a paused VM) wakes believing it still
    /// holds its calls. Whatever it then tries on a call that was taken from it — dialing a claim
    /// that was released and claimed again, ending an attempt that was closed and queued again —
    /// is refused in the same transaction that would have written it, so one attempt is never
    /// dialed twice and a survivor's outcome is never overwritten.
    @Test(arguments: StoreBackend.allCases)
    func aNodeThatStalledPastItsLeaseCanNeitherDialNorEndCallsTakenFromIt(backend: StoreBackend) async throws {
        let (a, b, ids) = try await Self.callsClaimedByA(2, on: backend)
        let t0 = Self.t0
        await #expect(throws: CallStore.Failure.notHolder(id: ids[0], node: "b", holder: "a"), "a's claim is a's") {
            try await b.transition(id: ids[0], to: .dialing, from: .queued, heldBy: "b", now: t0)
        }
        try await a.transition(id: ids[0], to: .dialing, from: .queued, heldBy: "a", now: t0)
        try await a.transition(id: ids[0], to: .connected, heldBy: "a", now: t0)
        // ids[0] live on a, ids[1] claimed by a. Then a stalls; b takes it over, the policy retries
        // ids[0], and b claims both calls and dials them.
        let t1 = t0.addingTimeInterval(16)
        try await b.nodes.heartbeat(node: "b", now: t1)
        let takeovers = try await b.takeOverLostNodes(survivor: "b", lease: 15, now: t1) { _ in t1 }
        #expect(takeovers == [.init(node: "a", closed: [ids[0]], released: [ids[1]])])
        #expect(Set(try await b.claimDueCalls(node: "b", room: 2, maxConcurrent: 10, dialableCampaigns: [], now: t1).map(\.outboundId)) == Set(ids))
        try await b.transition(id: ids[0], to: .dialing, from: .queued, heldBy: "b", now: t1)

        // a wakes up.
        await #expect(throws: CallStore.Failure.notHolder(id: ids[1], node: "a", holder: "b"), "the claim it had is b's now") {
            try await a.transition(id: ids[1], to: .dialing, from: .queued, heldBy: "a", now: t1)
        }
        await #expect(throws: CallStore.Failure.notHolder(id: ids[0], node: "a", holder: "b"), "its old attempt's end would end b's attempt") {
            try await a.endAttempt(id: ids[0], in: .failed, reason: "remote_hangup", retryAt: nil, heldBy: "a", now: t1)
        }
        let first = try #require(try await b.call(id: ids[0]))
        #expect(first.state == .dialing && first.nodeId == "b" && first.attemptCount == 2)
        let second = try #require(try await b.call(id: ids[1]))
        #expect(second.state == .queued && second.nodeId == "b" && second.attemptCount == 0, "not dialed by a")
        #expect(try await b.attempts(callID: ids[0]).map(\.failureReason) == ["node_lost", nil], "a's write added nothing")
        #expect(try await a.nodes.heartbeat(node: "a", now: t1) == false, "and its heartbeat tells it so")
        #expect(CallStore.Failure.notHolder(id: "ob-1", node: "a", holder: nil).description
                == "call ob-1 is no longer held by node a (no node holds it): its lease ran out and another node took it over")
    }

    @Test(arguments: StoreBackend.allCases)
    func theCallCreationLimitPerTokenHoldsOverBothNodes(backend: StoreBackend) async throws {
        let path = try await backend.newLocation()
        let a = try await CallStore.open(path), b = try await CallStore.open(path)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try await a.admitCreation(identity: "token-alpha", perMinute: 3, now: t0) == nil)
        #expect(try await b.admitCreation(identity: "token-alpha", perMinute: 3, now: t0.addingTimeInterval(10)) == nil)
        #expect(try await a.admitCreation(identity: "token-alpha", perMinute: 3, now: t0.addingTimeInterval(20)) == nil)
        #expect(try await b.admitCreation(identity: "token-alpha", perMinute: 3, now: t0.addingTimeInterval(30)) == 30,
                "the fourth in a minute, on the other node: refused until the first leaves the window")
        #expect(try await b.admitCreation(identity: "token-beta", perMinute: 3, now: t0.addingTimeInterval(30)) == nil, "per token")
        #expect(try await a.admitCreation(identity: "token-alpha", perMinute: 3, now: t0.addingTimeInterval(60.5)) == nil)
        let stored = try await a.sqlRead { try $0.column(String.self, "SELECT identity FROM api_admissions") }
        #expect(!stored.contains { $0.contains("token") } && stored.allSatisfy { $0.count == 32 }, "a hash, not the token: \(stored)")
    }

    @Test(arguments: StoreBackend.allCases)
    func aRestartClosesOnlyItsOwnNodesCalls(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let ids = try await Self.queuedCalls(3, in: store)
        _ = try await store.claimDueCalls(node: "a", room: 1, maxConcurrent: 10, dialableCampaigns: [])
        _ = try await store.claimDueCalls(node: "b", room: 2, maxConcurrent: 10, dialableCampaigns: [])
        try await store.transition(id: ids[0], to: .dialing, from: .queued)
        try await store.transition(id: ids[1], to: .dialing, from: .queued)
        #expect(try await store.reconcileAfterRestart(node: "a") == [ids[0]])
        #expect(try await store.nodes.list().map(\.id).contains("a"), "the restarted node is in the table before it serves")
        #expect(try await store.call(id: ids[1])?.state == .dialing, "b's call is b's")
        #expect(try await store.call(id: ids[2])?.nodeId == "b")
        #expect(try await store.reconcileAfterRestart(node: "b") == [ids[1]])
        #expect(try await store.call(id: ids[2])?.nodeId == nil, "b's claim is released by b's restart")
    }
}

extension Range<Int> {
    /// Runs `body` for each element in turn and joins the results.
    func asyncFlatMap<T>(_ body: (Int) async throws -> [T]) async rethrows -> [T] {
        var all: [T] = []
        for element in self { all += try await body(element) }
        return all
    }
}

/// A time a test sets while the code under test may read it from another thread.
private final class SettableDate: Sendable {
    private let value: Mutex<Date>
    init(_ date: Date) { value = Mutex(date) }
    var date: Date {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
