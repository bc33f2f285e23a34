import Foundation

/// An MCP server whose tools the agent may call (Streamable HTTP): on a template, or one call.
/// Its tools are listed when a call starts (`MCPToolCatalog`) and offered as `<name>_<tool>`.
public struct MCPServerDeclaration: Codable, Sendable, Hashable {
    public var name: String
    public var url: String
    /// Sent with every request; values may name secrets (`${secret:name}`), as a tool's may.
    public var headers: [String: String]

    public init(name: String, url: String, headers: [String: String] = [:]) {
        self.name = name
        self.url = url
        self.headers = headers
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        url = try c.decode(String.self, forKey: .url)
        headers = try c.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
    }

    /// Every problem with a list of servers, fields prefixed with `prefix.<index>`.
    public static func problems(in servers: [MCPServerDeclaration], prefix: String = "mcp_servers", secrets: ToolSecrets? = nil) -> [ToolDefinition.Problem] {
        var problems: [ToolDefinition.Problem] = []
        var seen: Set<String> = []
        for (i, server) in servers.enumerated() {
            let at = "\(prefix).\(i)"
            if server.name.wholeMatch(of: /[A-Za-z0-9]{1,24}/) == nil {
                problems.append(.init(field: "\(at).name", message: "must be 1 to 24 letters or digits (it prefixes the tools' names)"))
            } else if !seen.insert(server.name).inserted {
                problems.append(.init(field: "\(at).name", message: "is declared twice"))
            }
            // The URL and headers are checked as a tool's are.
            problems += (ToolDefinition.urlProblems(server.url) + ToolDefinition.headerProblems(server.headers, url: server.url, secrets: secrets))
                .map { .init(field: "\(at).\($0.field)", message: $0.message) }
        }
        if servers.count > 8 { problems.append(.init(field: prefix, message: "may name at most 8 servers")) }
        return problems
    }
}
