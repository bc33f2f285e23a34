/// `${secret:name}` in a tool's header values: the definition holds the reference, the request the
/// value. Values come from the configuration's `secrets:` or the environment
/// (`VOICEBRIDGE_SECRET_<NAME>`), and are masked wherever a tool call is recorded.
public enum SecretReference {
    /// The secret names `text` refers to, in order.
    public static func names(in text: String) -> [String] {
        text.matches(of: /\$\{secret:([A-Za-z0-9_]{1,64})\}/).map { String($0.1) }
    }

    public struct Missing: Error, Equatable, CustomStringConvertible {
        public var name: String
        public var description: String { "the secret '\(name)' is not configured" }
    }

    /// `headers` (sorted by name) with every reference replaced by its value: what is sent.
    public static func resolve(headers: [String: String], in secrets: ToolSecrets) throws(Missing) -> [(name: String, value: String)] {
        var resolved: [(name: String, value: String)] = []
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { resolved.append((name, try resolve(value, in: secrets))) }
        return resolved
    }

    /// `text` with every reference replaced by its value.
    public static func resolve(_ text: String, in secrets: ToolSecrets) throws(Missing) -> String {
        var missing: String?
        let resolved = text.replacing(/\$\{secret:([A-Za-z0-9_]{1,64})\}/) { match -> String in
            if let value = secrets.value(String(match.1)) { return value }
            missing = missing ?? String(match.1)
            return ""
        }
        if let missing { throw Missing(name: missing) }
        return resolved
    }
}

/// The secrets tools may name: the configuration's `secrets:` map, then the environment.
public struct ToolSecrets: Sendable {
    private let configured: [String: String]
    private let environment: [String: String]

    public init(configured: [String: String] = [:], environment: [String: String] = [:]) {
        self.configured = configured
        self.environment = environment
    }

    public func value(_ name: String) -> String? {
        configured[name] ?? environment["VOICEBRIDGE_SECRET_" + name.uppercased()]
    }

    /// `text` with every secret value (4 characters or longer) replaced by `***`.
    public func masked(_ text: String) -> String {
        let values = (Array(configured.values) + environment.filter { $0.key.hasPrefix("VOICEBRIDGE_SECRET_") }.map(\.value))
            .filter { $0.count >= 4 }.sorted { $0.count > $1.count }
        return values.reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
    }
}
