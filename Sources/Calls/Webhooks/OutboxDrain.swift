import Bridge
import Foundation
import Synchronization

/// The loop the outboxes (webhooks, `on_end` tools, post-call analyses) run for the life of the
/// server: claim what is due, at most `concurrency` in flight, each sent in a child task of this
/// scope; then sleep until something can have changed — a row written to an outbox (the store rings
/// `alarm` once the transaction commits, `SharedDatabase.watchingOutboxes`), a send ended (room again, or
/// a retry scheduled on the gate), or the gate's next read (the earliest pending row falls due, or
/// its idle interval). What to claim and how to send is the outbox's.
final class OutboxDrain<Item: Sendable>: Sendable {
    let concurrency: Int
    let gate: OutboxReadGate
    let alarm: WakeAlarm
    private let inFlight = Atomic<Int>(0)

    init(concurrency: Int, gate: OutboxReadGate) {
        self.concurrency = concurrency
        self.gate = gate
        alarm = WakeAlarm(clock: gate.clock)
    }

    /// `written`: the count of outbox writes the gate compares; `failed`: a read that threw (logged
    /// by the outbox; read again after `OutboxReadGate.retryAfterFailure`).
    func run(written: @escaping @Sendable () -> Int, claim: @escaping @Sendable (_ limit: Int) async throws -> [Item],
             earliestDue: @escaping @Sendable () async throws -> Date?, failed: @escaping @Sendable (any Error) -> Void,
             send: @escaping @Sendable (Item) async -> Void) async {
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                let seen = written()
                if inFlight.load(ordering: .relaxed) < concurrency, gate.isOpen(written: seen) {
                    do {
                        let due = try await claim(concurrency - inFlight.load(ordering: .relaxed))
                        try await gate.read(written: seen, claimedAny: !due.isEmpty, earliestDue: earliestDue)
                        for item in due {
                            inFlight.add(1, ordering: .relaxed)
                            group.addTask {
                                await send(item)
                                self.inFlight.subtract(1, ordering: .relaxed)
                                self.alarm.ring()
                            }
                        }
                    } catch {
                        failed(error)
                        gate.failed(written: seen)
                    }
                }
                // Full: only a send's end can change anything. Else the gate's next read, unless rung first.
                alarm.arm(at: inFlight.load(ordering: .relaxed) < concurrency ? gate.nextRead : nil)
                await alarm.wait()
            }
        }
    }

    /// `run` on `store`'s outboxes: rung by its commits that wrote to one, reading when their count moved.
    func run(on store: CallStore, claim: @escaping @Sendable (_ limit: Int) async throws -> [Item],
             earliestDue: @escaping @Sendable () async throws -> Date?, failed: @escaping @Sendable (any Error) -> Void,
             send: @escaping @Sendable (Item) async -> Void) async {
        await store.shared.watchingOutboxes(alarm) {
            await run(written: { store.shared.outboxWrites.load(ordering: .relaxed) }, claim: claim, earliestDue: earliestDue, failed: failed, send: send)
        }
    }
}
