import Foundation
import MCP

/// The tools of the MCP servers calls name, listed when a call starts and kept for `ttl`, so a
/// campaign's calls do not each ask again. A server that cannot be listed is left out of that
/// call (and asked again by the next), with why.
public actor MCPToolCatalog {
    let transport: any ToolTransport
    let secrets: ToolSecrets
    let ttl: Duration
    /// How long listing one server may take (a server that is down can take all of it: the HTTP
    /// client retries a refused connection until then).
    let listTimeout: Duration
    private var cache: [MCPServerDeclaration: (tools: [ToolDefinition], until: ContinuousClock.Instant)] = [:]

    public init(transport: any ToolTransport, secrets: ToolSecrets, ttl: Duration = .seconds(300), listTimeout: Duration = .seconds(3)) {
        self.transport = transport
        self.secrets = secrets
        self.ttl = ttl
        self.listTimeout = listTimeout
    }

    /// The tools of `servers`, as declarations the engines offer; and each server that failed, with why.
    public func tools(of servers: [MCPServerDeclaration]) async -> (tools: [ToolDefinition], failures: [String]) {
        var tools: [ToolDefinition] = []
        var failures: [String] = []
        for server in servers {
            if let cached = cache[server], cached.until > .now {
                tools += cached.tools
                continue
            }
            do {
                let listed = try await list(server)
                cache[server] = (listed, .now.advanced(by: ttl))
                tools += listed
            } catch {
                failures.append("\(server.name): \(secrets.masked("\(error)"))")
            }
        }
        return (tools, failures)
    }

    func list(_ server: MCPServerDeclaration) async throws -> [ToolDefinition] {
        try await MCPSession.with(server.url, headers: server.headers, secrets: secrets, transport: transport,
                                  timeout: listTimeout) { client in
            var tools: [Tool] = []
            var cursor: String?
            repeat {
                let page = try await client.listTools(cursor: cursor)
                tools += page.tools
                cursor = page.nextCursor
            } while cursor != nil && tools.count < 256
            return tools.map { tool in
                var definition = ToolDefinition(name: Self.name(server: server.name, tool: tool.name),
                                                description: tool.description ?? tool.title ?? tool.name,
                                                parameters: (try? JSONValue(tool.inputSchema)) ?? .object(["type": .string("object")]),
                                                url: server.url, headers: server.headers)
                definition.mcpTool = tool.name
                return definition
            }
        }
    }

    /// `<server>_<tool>` in the characters a model's function name may use, at most 64.
    static func name(server: String, tool: String) -> String {
        let cleaned = String(tool.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" })
        return String("\(server)_\(cleaned)".prefix(64))
    }
}

extension JSONValue {
    /// An MCP `Value` as JSON.
    init(_ value: Value) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }
}
