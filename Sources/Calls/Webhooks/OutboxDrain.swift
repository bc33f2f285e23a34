import Synchronization

/// The loop both outboxes (webhooks, `on_end` tools) run for the life of the server: claim what
/// is due, at most `concurrency` in flight, each sent in a child task of this scope; when nothing
/// is due, wait `pollInterval`. What to claim and how to send is the outbox's.
final class OutboxDrain<Item: Sendable>: Sendable {
    let concurrency: Int
    let pollInterval: Double
    private let inFlight = Atomic<Int>(0)

    init(concurrency: Int, pollInterval: Double) {
        self.concurrency = concurrency
        self.pollInterval = pollInterval
    }

    func run(claim: @Sendable (_ limit: Int) async -> [Item], send: @escaping @Sendable (Item) async -> Void) async {
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                let free = concurrency - inFlight.load(ordering: .relaxed)
                let due = free > 0 ? await claim(free) : []
                for item in due {
                    inFlight.add(1, ordering: .relaxed)
                    group.addTask {
                        await send(item)
                        self.inFlight.subtract(1, ordering: .relaxed)
                    }
                }
                if due.isEmpty { try? await Task.sleep(for: .seconds(pollInterval)) }
            }
        }
    }
}
