import Calls
import Foundation
import Pipeline
import TestSupport

/// The shared queue: calls stored, then claimed and started by one node or by two nodes at once
/// (two `CallStore`s on one database, as two processes would open it — a SQLite file, or a
/// PostgreSQL 15 server started for the run), through the same `claimDueCalls` and
/// `transition(to: .dialing, from: .queued)` the scheduler runs; and a lost node's live calls
/// taken over through the same `takeOverLostNodes` a survivor runs.
enum QueueClaimBenchmark {
    struct Result {
        var database: String
        var nodes: Int
        var calls: Int
        var insertsPerSecond: Double
        var claimedPerSecond: Double
        var claimP50Milliseconds: Double
        var claimP99Milliseconds: Double
        var claimedTwiceOrNever: Int
        /// `takeOverLostNodes` closing a lost node's 100 live calls (node_lost, retries queued), ms.
        var takeoverMilliseconds: Double
        /// The same database with `nodes` running servers, calls created by `POST /api/outbound`.
        var api: APICreationBenchmark.Result? = nil
    }

    /// `location`: a new database (a file path or a postgres:// URL).
    static func run(database: String, location: String, nodes: Int, calls: Int) async throws -> Result {
        var stores: [CallStore] = []
        for _ in 0..<nodes { stores.append(try await CallStore.open(location)) }
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
        let takeover = try await takeover(stores[0], liveCalls: 100)
        for store in stores { try await store.close() }
        return Result(database: database, nodes: nodes, calls: calls, insertsPerSecond: Double(calls) / insertSeconds, claimedPerSecond: Double(claimed.count) / claimSeconds,
                      claimP50Milliseconds: latencies[latencies.count / 2], claimP99Milliseconds: latencies[latencies.count * 99 / 100],
                      claimedTwiceOrNever: claimed.count - Set(claimed).count + (calls - Set(claimed).count), takeoverMilliseconds: takeover)
    }

    /// A node holding `liveCalls` dialing calls stops renewing its lease; how long the survivor's
    /// takeover transaction takes (the rest of death → reconciled is the lease itself and at most
    /// one heartbeat interval, lease / 5).
    static func takeover(_ store: CallStore, liveCalls: Int) async throws -> Double {
        let t0 = Date()
        try await store.nodes.register("lost", now: t0)
        try await store.nodes.register("survivor", now: t0.addingTimeInterval(60))
        for n in 0..<liveCalls {
            try await store.insert(CallRecord(outboundId: String(format: "ob-lost%04x", n), callerNumber: "0701234567", calleeNumber: "011\(10_000_000 + n)",
                                              purpose: "takeover benchmark", questions: ["Can you attend?"]))
        }
        var claimed = 0
        while claimed < liveCalls {
            let batch = try await store.claimDueCalls(node: "lost", room: 10, maxConcurrent: .max, dialableCampaigns: [], now: t0)
            if batch.isEmpty { break }
            for call in batch { try await store.transition(id: call.outboundId, to: .dialing, from: .queued, heldBy: "lost", now: t0) }
            claimed += batch.count
        }
        let started = ContinuousClock.now
        let takeovers = try await store.takeOverLostNodes(survivor: "survivor", lease: 3, now: t0.addingTimeInterval(10)) { _ in t0.addingTimeInterval(10) }
        let elapsed = (ContinuousClock.now - started).totalSeconds * 1000
        guard takeovers.first?.closed.count == claimed else { throw BenchError("takeover closed \(takeovers.first?.closed.count ?? 0) of \(claimed) live calls") }
        return elapsed
    }
}

extension BenchMain {
    static func queue(output: String) async throws {
        print("== Shared queue: 3000 calls stored, then claimed (10 a transaction) and started (queued → dialing) by 1 node, or by 2 nodes on one database at once;"
              + " then a lost node's 100 live calls taken over; and 2000 calls created by POST /api/outbound to 1 or 2 running servers (8 requests in flight each)")
        let binary = try serverBinary()
        var results: [QueueClaimBenchmark.Result] = []
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vb-queue-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for nodes in [1, 2] {
            let path = folder.appendingPathComponent("queue-\(nodes).sqlite").path
            var result = try await QueueClaimBenchmark.run(database: "SQLite", location: path, nodes: nodes, calls: 3000)
            let apiPath = folder.appendingPathComponent("api-\(nodes).sqlite").path
            result.api = try await APICreationBenchmark.run(serverBinary: binary, database: ["VOICEBRIDGE_DATABASE_PATH": apiPath], nodes: nodes, calls: 2000)
            results.append(result)
        }
        do {
            let server = try await TestPostgres.start()
            do {
                for nodes in [1, 2] {
                    var result = try await QueueClaimBenchmark.run(database: "PostgreSQL 15", location: try await server.newDatabase(), nodes: nodes, calls: 3000)
                    result.api = try await APICreationBenchmark.run(serverBinary: binary, database: ["VOICEBRIDGE_DATABASE_URL": try await server.newDatabase()],
                                                                    nodes: nodes, calls: 2000)
                    results.append(result)
                }
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        } catch let failure as TestPostgres.Failure {
            print("PostgreSQL rows skipped: \(failure)")
        }
        print(table(["database", "nodes", "calls stored per s", "calls claimed + started per s", "claim p50 ms", "claim p99 ms", "claimed twice or never",
                     "takeover of 100 live calls ms", "created through the API per s", "API create p50 / p99 ms"], results.map {
            [$0.database, "\($0.nodes)", format($0.insertsPerSecond, digits: 0), format($0.claimedPerSecond, digits: 0), format($0.claimP50Milliseconds),
             format($0.claimP99Milliseconds), "\($0.claimedTwiceOrNever)", format($0.takeoverMilliseconds, digits: 0),
             $0.api.map { format($0.createdPerSecond, digits: 0) } ?? "—", $0.api.map { "\(format($0.p50Milliseconds, digits: 1)) / \(format($0.p99Milliseconds, digits: 1))" } ?? "—"]
        }))
        try write(results.map { ["database": $0.database, "nodes": $0.nodes, "calls": $0.calls, "inserts_per_second": $0.insertsPerSecond,
                                 "claimed_per_second": $0.claimedPerSecond, "claim_p50_ms": $0.claimP50Milliseconds, "claim_p99_ms": $0.claimP99Milliseconds,
                                 "claimed_twice_or_never": $0.claimedTwiceOrNever, "takeover_100_live_calls_ms": $0.takeoverMilliseconds,
                                 "api_created": $0.api?.created ?? 0, "api_created_per_second": $0.api?.createdPerSecond ?? 0,
                                 "api_create_p50_ms": $0.api?.p50Milliseconds ?? 0, "api_create_p99_ms": $0.api?.p99Milliseconds ?? 0] },
                  to: output, as: "queue.json")
    }
}
