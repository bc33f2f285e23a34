import Foundation
import Testing
import TestSupport
@testable import Calls

/// Two nodes on one database while one of them is stalled inside a write: a poll that can claim
/// nothing does not wait for it, and on PostgreSQL the server ends the stalled session so the
/// others go on. (The rest of the nodes' story — claims, leases, takeover — is `NodeLeaseTests`.)
@Suite struct NodeWriteLockTests {
    /// A node stalled inside a write (SIGSTOP) holds every other node's writes. A poll that can
    /// claim nothing — nothing due, or every place busy — must not be among them: it reads, and
    /// returns at once. A poll that can claim waits for the lock, and claims.
    @Test(arguments: StoreBackend.allCases)
    func aPollThatCanClaimNothingDoesNotWaitForTheWritersLock(backend: StoreBackend) async throws {
        let path = try await backend.newLocation()
        let a = try await CallStore.open(path), b = try await CallStore.open(path)
        let t0 = NodeLeaseTests.t0
        let ids = try await NodeLeaseTests.queuedCalls(2, in: a)
        var later = CallStoreTests.sampleCall("ob-00000030")
        later.scheduledAt = t0.addingTimeInterval(60)
        try await a.insert(later)
        for id in ids {   // two places busy
            _ = try await a.claimDueCalls(node: "a", room: 1, maxConcurrent: 10, dialableCampaigns: [], now: t0)
            try await a.transition(id: id, to: .dialing, from: .queued, now: t0)
        }
        // b holds the writers' lock for 3 s; the checks below are about order, not durations.
        let (entered, enter) = AsyncStream.makeStream(of: Void.self)
        let stallEnded = Locked(false)
        let stall = Task {
            try await b.sqlWrite { _ in
                enter.yield()
                Thread.sleep(forTimeInterval: 3)
                stallEnded.withLock { $0 = true }
            }
        }
        var inside = entered.makeAsyncIterator()
        _ = await inside.next()   // b is inside its write
        #expect(try await a.claimDueCalls(node: "a", room: 10, maxConcurrent: 10, dialableCampaigns: [], now: t0).isEmpty)
        #expect(try await a.claimDueCalls(node: "a", room: 10, maxConcurrent: 2, dialableCampaigns: [], now: t0.addingTimeInterval(61)).isEmpty)
        #expect(!stallEnded.value, "a poll with nothing due, and one with every place busy, returned while b still held the lock")
        let claimed = try await a.claimDueCalls(node: "a", room: 10, maxConcurrent: 3, dialableCampaigns: [], now: t0.addingTimeInterval(61))
        #expect(claimed.map(\.outboundId) == [later.outboundId])
        #expect(stallEnded.value, "a claim waits for b's write")
        try await stall.value
    }

    /// On PostgreSQL a node stalled inside a write (SIGSTOP, a paused VM) does not hold every
    /// other node's writes for as long as it sleeps: the server ends its session after 5 s idle in
    /// the transaction, which is rolled back whole, and the others go on.
    @Test func onPostgreSQLANodeStalledInsideAWriteLetsTheOthersGoOnAfterFiveSeconds() async throws {
        let path = try await StoreBackend.postgres.newLocation()
        let a = try await CallStore.open(path), b = try await CallStore.open(path)
        let ids = try await NodeLeaseTests.queuedCalls(1, in: a)
        let priority = try #require(try await a.call(id: ids[0])?.priority)
        // Order, not durations: b holds the row's lock from its UPDATE on, so a claims the row only
        // once the server has ended b's session, and b is still asleep then.
        let (updated, signal) = AsyncStream.makeStream(of: Void.self)
        let stallEnded = Locked(false)
        let stall = Task {
            try await b.sqlWrite { sql in
                try sql.execute("UPDATE calls SET priority = priority + 1 WHERE outbound_id = ?", ids[0])
                signal.yield()
                Thread.sleep(forTimeInterval: 12)
                stallEnded.withLock { $0 = true }
            }
        }
        var inside = updated.makeAsyncIterator()
        _ = await inside.next()   // b holds the row
        #expect(try await a.claimDueCalls(node: "a", room: 1, maxConcurrent: 10, dialableCampaigns: []).map(\.outboundId) == ids)
        #expect(!stallEnded.value, "a went on after the server's 5 s, while b still slept")
        await #expect(throws: (any Error).self, "b's write fails when it wakes") { try await stall.value }
        #expect(try await a.call(id: ids[0])?.priority == priority, "and nothing of it was committed")
        #expect(try await b.call(id: ids[0])?.nodeId == "a", "b's store goes on with a new connection")
    }
}
