import Calls
import Foundation
import Pipeline

/// The shared queue: calls stored, then claimed and started by one node or by two nodes at once
/// (two `CallStore`s on one SQLite file, as two processes would open it), through the same
/// `claimDueCalls` and `transition(to: .dialing, from: .queued)` the scheduler runs.
enum QueueClaimBenchmark {
    struct Result {
        var nodes: Int
        var calls: Int
        var insertsPerSecond: Double
        var claimedPerSecond: Double
        var claimP50Milliseconds: Double
        var claimP99Milliseconds: Double
        var claimedTwiceOrNever: Int
    }

    static func run(nodes: Int, calls: Int) async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vb-queue-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("queue.sqlite").path
        let stores = try (0..<nodes).map { _ in try CallStore(path: path) }
        let insertStart = ContinuousClock.now
        for n in 0..<calls {
            try await stores[0].insert(CallRecord(outboundId: String(format: "ob-%08x", n), callerNumber: "0701234567", calleeNumber: "010\(10_000_000 + n)",
                                                  purpose: "queue benchmark", questions: ["Can you attend?"]))
        }
        let insertSeconds = (ContinuousClock.now - insertStart).totalSeconds
        let claimStart = ContinuousClock.now
        let perNode = try await withThrowingTaskGroup(of: ([String], [Double]).self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask {
                    var claimed: [String] = [], latencies: [Double] = []
                    while true {
                        let started = ContinuousClock.now
                        let batch = try await store.claimDueCalls(node: "node-\(index)", room: 10, maxConcurrent: .max, dialableCampaigns: [])
                        latencies.append((ContinuousClock.now - started).totalSeconds * 1000)
                        if batch.isEmpty { break }
                        for call in batch { try await store.transition(id: call.outboundId, to: .dialing, from: .queued) }
                        claimed += batch.map(\.outboundId)
                    }
                    return (claimed, latencies)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let claimSeconds = (ContinuousClock.now - claimStart).totalSeconds
        let claimed = perNode.flatMap(\.0)
        let latencies = perNode.flatMap(\.1).sorted()
        for store in stores { try await store.close() }
        return Result(nodes: nodes, calls: calls, insertsPerSecond: Double(calls) / insertSeconds, claimedPerSecond: Double(claimed.count) / claimSeconds,
                      claimP50Milliseconds: latencies[latencies.count / 2], claimP99Milliseconds: latencies[latencies.count * 99 / 100],
                      claimedTwiceOrNever: claimed.count - Set(claimed).count + (calls - Set(claimed).count))
    }
}

extension BenchMain {
    static func queue(output: String) async throws {
        print("== Shared queue on SQLite: 3000 calls stored, then claimed (10 a transaction) and started (queued → dialing) by 1 node, or by 2 nodes on one file at once")
        var results: [QueueClaimBenchmark.Result] = []
        for nodes in [1, 2] { results.append(try await QueueClaimBenchmark.run(nodes: nodes, calls: 3000)) }
        print(table(["nodes", "calls stored per s", "calls claimed + started per s", "claim p50 ms", "claim p99 ms", "claimed twice or never"], results.map {
            ["\($0.nodes)", format($0.insertsPerSecond, digits: 0), format($0.claimedPerSecond, digits: 0), format($0.claimP50Milliseconds),
             format($0.claimP99Milliseconds), "\($0.claimedTwiceOrNever)"]
        }))
        try write(results.map { ["nodes": $0.nodes, "calls": $0.calls, "inserts_per_second": $0.insertsPerSecond, "claimed_per_second": $0.claimedPerSecond,
                                 "claim_p50_ms": $0.claimP50Milliseconds, "claim_p99_ms": $0.claimP99Milliseconds, "claimed_twice_or_never": $0.claimedTwiceOrNever] },
                  to: output, as: "queue.json")
    }
}
