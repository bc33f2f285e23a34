import AsyncHTTPClient
import Foundation
import NIOCore

/// Calls created through the API: `POST /api/outbound` to one or two running `voicebridge serve`
/// nodes on one database, as an operator's client would send them. Each creation is the
/// production path end to end: HTTP, validation, the database-counted rate limit, the insert.
/// The calls are scheduled a day ahead so that creating them is all that is measured; nothing
/// is dialled.
enum APICreationBenchmark {
    struct Result {
        var created: Int
        var createdPerSecond: Double
        var p50Milliseconds: Double
        var p99Milliseconds: Double
    }

    /// `database`: environment that points every node at the same database
    /// (`VOICEBRIDGE_DATABASE_PATH` or `VOICEBRIDGE_DATABASE_URL`).
    static func run(serverBinary: String, database: [String: String], nodes: Int, calls: Int, inFlightPerNode: Int = 8) async throws -> Result {
        var servers: [ServerProcess] = []
        defer { for server in servers { server.stop() } }
        for index in 0..<nodes {
            servers.append(try await ServerProcess.start(binary: serverBinary, environment: database.merging([
                "VOICEBRIDGE_ENGINE_MODE": "echo",
                "VOICEBRIDGE_CLUSTER_NODE_ID": "bench-\(index)",
                // The limit is the one every node shares through the database; raised to its
                // ceiling so that it admits every request and is still counted on each.
                "VOICEBRIDGE_API_CALL_CREATIONS_PER_MINUTE": "100000",
            ]) { $1 }))
        }
        let scheduledAt = ISO8601DateFormatter().string(from: Date().addingTimeInterval(86_400))
        let bodies = (0..<calls).map { n in
            ByteBuffer(string: #"{"caller_number":"0701234567","callee_number":"010\#(20_000_000 + n)","purpose":"API benchmark","#
                + #""questions":["Can you attend?"],"scheduled_at":"\#(scheduledAt)"}"#)
        }
        let next = EngineBenchmark.Shared(0)
        let started = ContinuousClock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for server in servers {
                for _ in 0..<inFlightPerNode {
                    group.addTask {
                        var latencies: [Double] = []
                        while true {
                            let n = next.withLock { value -> Int in defer { value += 1 }; return value }
                            guard n < calls else { return latencies }
                            let sent = ContinuousClock.now
                            try await create(bodies[n], on: server)
                            latencies.append((ContinuousClock.now - sent).totalSeconds * 1000)
                        }
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let seconds = (ContinuousClock.now - started).totalSeconds
        // Every node reads every call back from the shared database.
        for server in servers {
            let page = try await PersonaBenchmark.json(get: "http://127.0.0.1:\(server.httpPort)/api/outbound?limit=1")
            guard page["total"] as? Int == calls else { throw BenchError("node on port \(server.httpPort) lists \(page["total"] ?? "nothing") calls, \(calls) were created") }
        }
        let percentiles = EngineBenchmark.percentiles(latencies)
        return Result(created: latencies.count, createdPerSecond: Double(latencies.count) / seconds, p50Milliseconds: percentiles.p50, p99Milliseconds: percentiles.p99)
    }

    private static func create(_ body: ByteBuffer, on server: ServerProcess) async throws {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(server.httpPort)/api/outbound")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(body)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .accepted else { throw BenchError("POST /api/outbound: \(response.status.code) \(String(buffer: answer))") }
    }
}
