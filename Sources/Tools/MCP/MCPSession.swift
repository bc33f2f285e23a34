import Foundation
import MCP

/// One MCP client session with a server, for the length of `body`: connected (initialized) through
/// the official SDK's `Client` over `MCPHTTPTransport`, bounded by `timeout`, disconnected after.
enum MCPSession {
    struct TimedOut: Error, CustomStringConvertible {
        var description: String { "the MCP server did not answer in time" }
    }

    static func with<T: Sendable>(_ url: String, headers: [String: String], secrets: ToolSecrets, transport: any ToolTransport, timeout: Duration,
                                  _ body: @escaping @Sendable (Client) async throws -> T) async throws -> T {
        let host = (try? OutboundURL(url))?.host ?? ""
        let connection = MCPHTTPTransport(endpoint: url, headers: try SecretReference.resolve(headers: headers, in: secrets, for: host), transport: transport, timeout: timeout)
        let client = Client(name: "VoiceBridge", version: "1")
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await run(client, connection, timeout: timeout, body))
        } catch {
            outcome = .failure(error)
        }
        await client.disconnect()
        return try outcome.get()
    }

    private static func run<T: Sendable>(_ client: Client, _ connection: MCPHTTPTransport, timeout: Duration,
                                         _ body: @escaping @Sendable (Client) async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                _ = try await client.connect(transport: connection)
                return try await body(client)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                // The SDK's wait for an answer does not end on cancellation; disconnecting ends it.
                await client.disconnect()
                throw TimedOut()
            }
            defer { group.cancelAll() }
            guard let result = try await group.next() ?? nil else { throw TimedOut() }
            return result
        }
    }
}
