import Bridge
import Foundation
import Pipeline
import Synchronization
import Testing
import TestSupport
@testable import Calls

/// The outboxes (webhooks, `on_end` tools, analyses) sleep until something can have changed: a
/// write rings them, a retry is read when it falls due, and an idle outbox is read twice a minute
/// — not every 250 ms as it was. In virtual time, so an hour costs milliseconds.
@Suite struct OutboxDrainTests {
    /// Rows of a fake outbox: each item is claimable from its due time on.
    final class Rows: Sendable {
        let pending = Mutex<[(item: Int, due: ContinuousClock.Instant)]>([])
        let reads = Mutex(0)
        let sent = Mutex<[(item: Int, at: Duration)]>([])
        let written = Mutex(0)
        let attempts = Mutex<[Int: Int]>([:])

        func claim(limit: Int, now: ContinuousClock.Instant) -> [Int] {
            reads.withLock { $0 += 1 }
            return pending.withLock { rows in
                let due = rows.filter { $0.due <= now }.prefix(limit).map(\.item)
                rows.removeAll { due.contains($0.item) }
                return due
            }
        }
    }

    @Test func anIdleOutboxIsReadTwiceAMinuteNotPolled() async throws {
        let executor = VirtualTimeExecutor()
        let rows = Rows()
        try await executor.run {
            let clock = CallClock(virtualTime: executor)
            let drain = OutboxDrain<Int>(concurrency: 2, gate: OutboxReadGate(idleInterval: .seconds(30), clock: clock))
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await drain.run(written: { 0 }, claim: { rows.claim(limit: $0, now: clock.now) }, earliestDue: { nil },
                                    failed: { _ in }, send: { _ in })
                }
                try? await clock.sleep(for: .seconds(3600) + .milliseconds(1))
                group.cancelAll()
            }
        }
        #expect(rows.reads.withLock { $0 } == 121, "at 0 s, then every 30 s for an hour (polling every 250 ms read it 14,400 times)")
        #expect(executor.strayWakeups == 0)
    }

    @Test func aWriteIsReadAtOnceAndARetryWhenItFallsDue() async throws {
        let executor = VirtualTimeExecutor()
        let rows = Rows()
        try await executor.run {
            let clock = CallClock(virtualTime: executor)
            let gate = OutboxReadGate(idleInterval: .seconds(30), clock: clock)
            let drain = OutboxDrain<Int>(concurrency: 2, gate: gate)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await drain.run(written: { rows.written.withLock { $0 } }, claim: { rows.claim(limit: $0, now: clock.now) },
                                    earliestDue: { nil }, failed: { _ in }, send: { item in
                        rows.sent.withLock { $0.append((item, executor.elapsed)) }
                        // The first attempt fails: the row is due again in 5 s, and the gate told.
                        if rows.attempts.withLock({ a in defer { a[item, default: 0] += 1 }; return a[item, default: 0] }) == 0 {
                            rows.pending.withLock { $0.append((item, clock.now.advanced(by: .seconds(5)))) }
                            gate.due(in: 5)
                        }
                    })
                }
                try? await clock.sleep(for: .seconds(100))
                // What the store does when a transaction that wrote to an outbox commits.
                rows.pending.withLock { $0.append((7, clock.now)) }
                rows.written.withLock { $0 += 1 }
                drain.alarm.ring()
                try? await clock.sleep(for: .seconds(20))
                group.cancelAll()
            }
        }
        let sent = rows.sent.withLock { $0 }
        #expect(sent.map(\.item) == [7, 7])
        #expect(sent.map(\.at) == [.seconds(100), .seconds(105)], "the write at once, the retry when due: \(sent.map(\.at))")
        #expect(rows.reads.withLock { $0 } <= 8, "reads at 0, 30, 60, 90, the write, after the send, the retry, after it")
    }

    /// A send that ends while the loop reads the outbox's earliest due row schedules its retry in
    /// the middle of that read, and the read may have looked before the retry was stored: the retry
    /// is still read when it falls due, not at the idle interval.
    @Test func aRetryScheduledDuringAReadIsNotLostToTheIdleInterval() async throws {
        let executor = VirtualTimeExecutor()
        let rows = Rows()
        let (retryScheduled, scheduling) = AsyncStream<Void>.makeStream()
        let firstLook = Locked(true)
        try await executor.run {
            let clock = CallClock(virtualTime: executor)
            let gate = OutboxReadGate(idleInterval: .seconds(30), clock: clock)
            let drain = OutboxDrain<Int>(concurrency: 2, gate: gate)
            rows.pending.withLock { $0.append((7, clock.now)) }
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await drain.run(written: { 0 }, claim: { rows.claim(limit: $0, now: clock.now) }, earliestDue: {
                        // The read after the claim looks at the store before the send below has
                        // written its retry, and returns once the send has told the gate of it.
                        if firstLook.withLock({ first in defer { first = false }; return first }) {
                            var scheduled = retryScheduled.makeAsyncIterator()
                            _ = await scheduled.next()
                        }
                        return nil
                    }, failed: { _ in }, send: { item in
                        rows.sent.withLock { $0.append((item, executor.elapsed)) }
                        if rows.attempts.withLock({ a in defer { a[item, default: 0] += 1 }; return a[item, default: 0] }) == 0 {
                            rows.pending.withLock { $0.append((item, clock.now.advanced(by: .seconds(5)))) }
                            gate.due(in: 5)
                            scheduling.yield()
                        }
                    })
                }
                try? await clock.sleep(for: .seconds(40))
                group.cancelAll()
            }
        }
        let sent = rows.sent.withLock { $0 }
        #expect(sent.map(\.item) == [7, 7])
        #expect(sent.map(\.at) == [.zero, .seconds(5)], "the retry when due, not at the idle read: \(sent.map(\.at))")
    }
}
