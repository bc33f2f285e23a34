import Foundation

/// A tool the operator declares for the agent — on a template, an inbound route or one call: the
/// model sees its name, description and parameters; VoiceBridge makes the HTTP request when the
/// model calls it and hands the JSON answer back.
///
/// Header values may name secrets (`Bearer ${secret:crm_token}`): the definition is stored and
/// returned with the reference, the value is filled in only on the request (`SecretReference`).
public struct ToolDefinition: Codable, Sendable, Equatable {
    public var name: String
    public var description: String
    /// A JSON Schema object (see `JSONSchema` for the keywords it may use).
    public var parameters: JSONValue
    public var url: String
    /// GET and DELETE send the arguments as the query; POST, PUT and PATCH as a JSON body.
    public var method: String
    public var headers: [String: String]
    public var timeoutMilliseconds: Int
    /// Said when the tool takes longer than a moment (`ToolDefinition.waitBeforeSpeaking`), so the
    /// line never goes silent; nil: the default line.
    public var speakWhileWaiting: String?
    /// Run after the call with its result (a CRM write), not offered to the model.
    public var onEnd: Bool
    /// Set on a tool an MCP server lists: its name there (`url` is then the server's endpoint, and
    /// the call is an MCP `tools/call`, not a plain request).
    public var mcpTool: String?

    public static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    public static let defaultTimeoutMilliseconds = 5000
    public static let timeoutRange = 100...30_000
    public static let waitBeforeSpeaking: Duration = .milliseconds(700)
    public static let defaultWaitingLine = "One moment, please, while I check."
    /// The answer handed to the model is cut off beyond this (a model's context is not a bulk channel).
    public static let answerLimit = 16 * 1024
    /// Names the engines use themselves.
    public static let reservedNames: Set<String> = ["update_task_state", "end_call", "transfer_call", "search_knowledge"]

    enum CodingKeys: String, CodingKey {
        case name, description, parameters, url, method, headers
        case timeoutMilliseconds = "timeout_ms", speakWhileWaiting = "speak_while_waiting", onEnd = "on_end", mcpTool = "mcp_tool"
    }

    public init(name: String, description: String, parameters: JSONValue = .object(["type": .string("object"), "properties": .object([:])]),
                url: String, method: String = "POST", headers: [String: String] = [:], timeoutMilliseconds: Int = Self.defaultTimeoutMilliseconds,
                speakWhileWaiting: String? = nil, onEnd: Bool = false) {
        self.name = name
        self.description = description
        self.parameters = parameters
        self.url = url
        self.method = method
        self.headers = headers
        self.timeoutMilliseconds = timeoutMilliseconds
        self.speakWhileWaiting = speakWhileWaiting
        self.onEnd = onEnd
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        description = try c.decodeIfPresent(String.self, forKey: .description) ?? ""
        parameters = try c.decodeIfPresent(JSONValue.self, forKey: .parameters) ?? .object(["type": .string("object"), "properties": .object([:])])
        url = try c.decode(String.self, forKey: .url)
        method = (try c.decodeIfPresent(String.self, forKey: .method) ?? "POST").uppercased()
        headers = try c.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        timeoutMilliseconds = try c.decodeIfPresent(Int.self, forKey: .timeoutMilliseconds) ?? Self.defaultTimeoutMilliseconds
        speakWhileWaiting = try c.decodeIfPresent(String.self, forKey: .speakWhileWaiting)
        onEnd = try c.decodeIfPresent(Bool.self, forKey: .onEnd) ?? false
        mcpTool = try c.decodeIfPresent(String.self, forKey: .mcpTool)
    }

    /// One thing wrong with a declaration, and where (`tools.0.url`).
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public var field: String
        public var message: String
        public init(field: String, message: String) {
            self.field = field
            self.message = message
        }
        public var description: String { "\(field) \(message)" }
    }

    /// A tool's (or an MCP server's) URL: absolute http(s) in the plain form `OutboundURL` takes, no secrets in it.
    static func urlProblems(_ url: String) -> [Problem] {
        if url.contains("${") { return [.init(field: "url", message: "may not hold secrets: put them in a header")] }
        return OutboundURL.problem(url).map { [.init(field: "url", message: $0)] } ?? []
    }

    /// A tool's (or an MCP server's) headers: names, one-line values, secrets that exist and may be
    /// sent to `url`'s host (when `secrets` is given).
    static func headerProblems(_ headers: [String: String], url: String, secrets: ToolSecrets?) -> [Problem] {
        var problems: [Problem] = []
        let host = (try? OutboundURL(url))?.host
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            if name.wholeMatch(of: /[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}/) == nil {
                problems.append(.init(field: "headers.\(name)", message: "is not an HTTP header name"))
            }
            if value.contains(where: { $0.isNewline || $0 == "\0" }) || value.count > 4096 {
                problems.append(.init(field: "headers.\(name)", message: "must be one line of at most 4096 characters"))
            }
            guard let secrets else { continue }
            for secret in SecretReference.names(in: value) {
                if !secrets.has(secret) {
                    problems.append(.init(field: "headers.\(name)", message: "names the secret '\(secret)', which is not configured (secrets.\(secret) in the configuration, its value there or in VOICEBRIDGE_SECRET_\(secret.uppercased()))"))
                } else if let host, case .failure(let refusal) = secrets.value(secret, for: host) {
                    problems.append(.init(field: "headers.\(name)", message: "names the secret '\(secret)', which \(refusal.description.replacingOccurrences(of: "the secret '\(secret)' ", with: ""))"))
                }
            }
        }
        return problems
    }

    /// Every problem with a list of declarations, fields prefixed with `prefix.<index>`; names must
    /// differ, and secrets named in headers must be among `secrets` (nil: not checked here).
    public static func problems(in tools: [ToolDefinition], prefix: String = "tools", secrets: ToolSecrets? = nil) -> [Problem] {
        var problems: [Problem] = []
        var seen: Set<String> = []
        for (i, tool) in tools.enumerated() {
            let at = "\(prefix).\(i)"
            problems += tool.problems(secrets: secrets).map { Problem(field: "\(at).\($0.field)", message: $0.message) }
            if !seen.insert(tool.name).inserted { problems.append(.init(field: "\(at).name", message: "is declared twice")) }
        }
        if tools.count > 32 { problems.append(.init(field: prefix, message: "may declare at most 32 tools")) }
        return problems
    }

    func problems(secrets: ToolSecrets?) -> [Problem] {
        var problems: [Problem] = []
        if name.wholeMatch(of: /[A-Za-z0-9_-]{1,64}/) == nil {
            problems.append(.init(field: "name", message: "must be 1 to 64 letters, digits, _ or -"))
        } else if Self.reservedNames.contains(name) {
            problems.append(.init(field: "name", message: "is one of the agent's own tools"))
        }
        if description.trimmingCharacters(in: .whitespaces).isEmpty || description.count > 1024 {
            problems.append(.init(field: "description", message: "must be 1 to 1024 characters: the model decides from it when to call the tool"))
        }
        do { _ = try JSONSchema(parameters: parameters) } catch {
            problems.append(.init(field: error.field, message: error.message))
        }
        problems += Self.urlProblems(url)
        if !Self.methods.contains(method) { problems.append(.init(field: "method", message: "must be one of \(Self.methods.joined(separator: ", "))")) }
        problems += Self.headerProblems(headers, url: url, secrets: secrets)
        if !Self.timeoutRange.contains(timeoutMilliseconds) {
            problems.append(.init(field: "timeout_ms", message: "must be between \(Self.timeoutRange.lowerBound) and \(Self.timeoutRange.upperBound)"))
        }
        if onEnd, ["GET", "DELETE"].contains(method) {
            problems.append(.init(field: "method", message: "an on_end tool sends the call's result as its body: use POST, PUT or PATCH"))
        }
        if let line = speakWhileWaiting, line.trimmingCharacters(in: .whitespaces).isEmpty || line.count > 200 {
            problems.append(.init(field: "speak_while_waiting", message: "must be 1 to 200 characters"))
        }
        return problems
    }
}
