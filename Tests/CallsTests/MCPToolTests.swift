import Foundation
import Synchronization
import Testing
import TestSupport
import Tools
@testable import Calls

/// MCP servers' tools through the official Swift SDK's client over the server's egress transport,
/// against Python's official SDK (a server written by others, in another language).
@Suite(.serialized, .enabled(if: MCPReferenceServer.isInstalled)) struct MCPToolTests {
    /// Counts the POSTs that reach the MCP server.
    final class CountingTransport: ToolTransport {
        let inner = EgressToolTransport(policy: EgressPolicy(allowed: [], allowsLoopback: true))
        let posts = Mutex(0)
        func send(_ request: ToolHTTPRequest, timeout: Duration, bodyLimit: Int) async throws(ToolTransportFailure) -> ToolHTTPResponse {
            posts.withLock { $0 += 1 }
            return try await inner.send(request, timeout: timeout, bodyLimit: bodyLimit)
        }
    }

    @Test func theServersToolsAreListedOnceAndCalled() async throws {
        let server = try await MCPReferenceServer()
        defer { server.stop() }
        let transport = CountingTransport()
        let catalog = MCPToolCatalog(transport: transport, secrets: ToolSecrets(), listTimeout: .milliseconds(500))
        let clinic = MCPServerDeclaration(name: "clinic", url: server.url)
        let (tools, failures) = await catalog.tools(of: [clinic, MCPServerDeclaration(name: "gone", url: "http://127.0.0.1:9/mcp")])
        #expect(tools.map(\.name).sorted() == ["clinic_cancel_booking", "clinic_free_slots"])
        #expect(failures.count == 1 && failures[0].hasPrefix("gone: "), "\(failures)")
        let slots = try #require(tools.first { $0.name == "clinic_free_slots" })
        #expect(slots.mcpTool == "free_slots" && slots.description.contains("free appointment times"))
        #expect(slots.parameters["required"] == .array([.string("day")]), "the server's own schema: \(slots.parameters.serialized)")
        let posted = transport.posts.withLock { $0 }
        _ = await catalog.tools(of: [clinic])
        #expect(transport.posts.withLock { $0 } == posted, "listed again within the TTL: from the cache")

        let runner = ToolRunner(transport: transport, secrets: ToolSecrets())
        let ok = await runner.call(slots, arguments: #"{"day":"2026-12-01"}"#)
        #expect(ok.record.status == .ok, "\(ok.record)")
        #expect(try JSONValue.parse(ok.answer) == JSONValue.parse(#"{"day":"2026-12-01","free":["10:30","14:00"]}"#))
        let cancel = try #require(tools.first { $0.name == "clinic_cancel_booking" })
        let refused = await runner.call(cancel, arguments: #"{"booking":"B-9"}"#)
        #expect(refused.record.status == .failed && refused.answer.contains("B-9 does not exist"), "\(refused.answer)")
        let invalid = await runner.call(slots, arguments: #"{"day":7}"#)
        #expect(invalid.record.status == .invalidArguments, "checked against the server's schema before sending: \(invalid.answer)")
    }
}
