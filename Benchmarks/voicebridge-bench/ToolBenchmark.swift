import Calls
import Egress
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import TestSupport
import Tools

/// What calling one of the operator's tools adds to a turn beyond the tool's own time: the
/// server's `ToolRunner` (argument check, secrets, the request through the egress client, the
/// answer) against a local HTTP tool that answers after a fixed 50 ms, and against the reference
/// MCP server (Python's SDK: a session of its own per call — initialize, initialized, tools/call).
enum ToolBenchmark {
    struct Figure {
        var kind: String
        var calls: Int
        var p50: Double
        var p99: Double
    }

    static let toolTime: Duration = .milliseconds(50)

    static func run(calls: Int) async throws -> [Figure] {
        let tool = Router()
        tool.post("book") { request, _ -> Response in
            _ = try await request.body.collect(upTo: 1 << 16)
            try await Task.sleep(for: toolTime)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"booked":true}"#)))
        }
        let transport = EgressToolTransport(policy: EgressPolicy(allowed: [], allowsLoopback: true))
        let runner = ToolRunner(transport: transport, secrets: ToolSecrets(configured: ["key": ToolSecret(value: "bench-secret", hosts: ["127.0.0.1"])]))
        let figures = Locked<[Figure]>([])
        try await withLoopbackServer(router: tool, webSocketRouter: Router(context: BasicWebSocketRequestContext.self)) { port in
            let booking = ToolDefinition(name: "book", description: "Book.",
                                         parameters: try JSONValue.parse(#"{"type":"object","properties":{"date":{"type":"string"}},"required":["date"]}"#),
                                         url: "http://127.0.0.1:\(port)/book", headers: ["Authorization": "Bearer ${secret:key}"])
            let added = try await measure(calls: calls) { await runner.call(booking, arguments: #"{"date":"2026-12-01"}"#) }
                .map { $0 - toolTime.totalSeconds * 1000 }
            figures.withLock { $0.append(figure("HTTP tool", added)) }
        }
        if MCPReferenceServer.isInstalled {
            let server = try await MCPReferenceServer()
            defer { server.stop() }
            let (tools, _) = await MCPToolCatalog(transport: transport, secrets: ToolSecrets()).tools(of: [MCPServerDeclaration(name: "clinic", url: server.url)])
            if let slots = tools.first(where: { $0.name == "clinic_free_slots" }) {
                let total = try await measure(calls: calls / 2) { await runner.call(slots, arguments: #"{"day":"2026-12-01"}"#) }
                figures.withLock { $0.append(figure("MCP tool (whole round trip: the tool's own time is ~0)", total)) }
            }
        }
        return figures.value
    }

    /// Milliseconds per call; every call must succeed.
    static func measure(calls: Int, _ call: () async -> ToolRunner.Outcome) async throws -> [Double] {
        var times: [Double] = []
        for _ in 0..<calls {
            let started = ContinuousClock.now
            let outcome = await call()
            guard outcome.record.status == .ok else { throw BenchError("a tool call failed: \(outcome.answer)") }
            times.append((ContinuousClock.now - started).totalSeconds * 1000)
        }
        return times.sorted()
    }

    static func figure(_ kind: String, _ sorted: [Double]) -> Figure {
        Figure(kind: kind, calls: sorted.count, p50: sorted[sorted.count / 2], p99: sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
    }
}

extension BenchMain {
    static func tools(output: String) async throws {
        print("== Tools: what a tool call adds to a turn beyond the tool's own time (one call at a time, loopback)")
        let figures = try await ToolBenchmark.run(calls: 200)
        print(table(["tool", "calls", "added p50 ms", "added p99 ms"], figures.map { [$0.kind, String($0.calls), format($0.p50, digits: 1), format($0.p99, digits: 1)] }))
        try write(figures.map { ["kind": $0.kind, "calls": $0.calls, "added_p50_ms": $0.p50, "added_p99_ms": $0.p99] }, to: output, as: "tools.json")
    }
}
