/// `${secret:name}` in a tool's header values: the definition holds the reference, the request the
/// value. Values come from the configuration's `secrets:` or the environment
/// (`VOICEBRIDGE_SECRET_<NAME>`), each bound to the hosts the operator named for it, and are
/// masked wherever a tool call is recorded.
public enum SecretReference {
    static var pattern: Regex<(Substring, Substring)> { /\$\{secret:([A-Za-z0-9_]{1,64})\}/ }

    /// The secret names `text` refers to, in order.
    public static func names(in text: String) -> [String] {
        text.matches(of: pattern).map { String($0.1) }
    }

    /// Why a secret was not filled in: there is none by that name, or it may not go to that host.
    public struct Missing: Error, Equatable, CustomStringConvertible {
        public var name: String
        /// The host the request was for, when the secret exists but is not bound to it.
        public var refusedHost: String?

        public init(name: String, refusedHost: String? = nil) {
            self.name = name
            self.refusedHost = refusedHost
        }

        public var description: String {
            guard let refusedHost else { return "the secret '\(name)' is not configured" }
            return "the secret '\(name)' may not be sent to \(refusedHost) (secrets.\(name).hosts names where it may go)"
        }
    }

    /// `headers` (sorted by name) with every reference replaced by its value, for a request to
    /// `host`: what is sent.
    public static func resolve(headers: [String: String], in secrets: ToolSecrets, for host: String) throws(Missing) -> [(name: String, value: String)] {
        var resolved: [(name: String, value: String)] = []
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { resolved.append((name, try resolve(value, in: secrets, for: host))) }
        return resolved
    }

    /// `text` with every reference replaced by its value, for a request to `host`.
    public static func resolve(_ text: String, in secrets: ToolSecrets, for host: String) throws(Missing) -> String {
        var missing: Missing?
        let resolved = text.replacing(pattern) { match -> String in
            switch secrets.value(String(match.1), for: host) {
            case .success(let value): return value
            case .failure(let problem):
                missing = missing ?? problem
                return ""
            }
        }
        if let missing { throw missing }
        return resolved
    }
}

/// One secret: its value (nil: `VOICEBRIDGE_SECRET_<NAME>` gives it) and the hosts it may be sent
/// to — a name (`crm.example.com`), every name under one (`*.example.com`), or an address. A
/// secret goes only there, whoever declared the tool that names it: an API token lets its holder
/// declare tools, not decide where the operator's credentials go.
public struct ToolSecret: Sendable, Equatable {
    public var value: String?
    public var hosts: [String]

    public init(value: String? = nil, hosts: [String]) {
        self.value = value
        self.hosts = hosts.map(Self.normalized)
    }

    /// Whether a request to `host` may carry this secret.
    public func allows(_ host: String) -> Bool {
        let host = Self.normalized(host)
        return hosts.contains { pattern in
            if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst()) && host.count > pattern.count - 1 }
            return pattern == host
        }
    }

    /// Why `text` cannot be one of `hosts`, or nil.
    public static func hostProblem(_ text: String) -> String? {
        let name = text.hasPrefix("*.") ? String(text.dropFirst(2)) : text
        guard !name.isEmpty, name.count <= 253,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0)) }) else {
            return "'\(text)' is not a host name (crm.example.com), *.example.com or an address"
        }
        return nil
    }

    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}

/// The secrets tools may name: the configuration's `secrets:` map, values from the environment
/// where the configuration gives none.
public struct ToolSecrets: Sendable {
    private let configured: [String: ToolSecret]
    private let environment: [String: String]

    public init(configured: [String: ToolSecret] = [:], environment: [String: String] = [:]) {
        self.configured = configured
        self.environment = environment
    }

    /// Whether a secret called `name` exists (its hosts aside).
    public func has(_ name: String) -> Bool { rawValue(name) != nil }

    /// The value of `name` for a request to `host`, or why not.
    public func value(_ name: String, for host: String) -> Result<String, SecretReference.Missing> {
        guard let value = rawValue(name), let secret = configured[name] else { return .failure(.init(name: name)) }
        guard secret.allows(host) else { return .failure(.init(name: name, refusedHost: ToolSecret.normalized(host))) }
        return .success(value)
    }

    private func rawValue(_ name: String) -> String? {
        guard let secret = configured[name] else { return nil }
        return secret.value ?? environment["VOICEBRIDGE_SECRET_" + name.uppercased()]
    }

    /// `text` with every secret value replaced by `***`, as it is and as JSON writes it inside a
    /// string. Values shorter than 4 characters are not masked (they would mask ordinary words and
    /// digits everywhere); `secrets` refuses such values when the configuration is read.
    public func masked(_ text: String) -> String {
        let values = configured.keys.compactMap(rawValue).filter { $0.count >= ToolSecrets.shortestMasked }
        let forms = Set(values.flatMap { [$0] + Self.jsonEscaped($0) }).sorted { $0.count > $1.count }
        return forms.reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
    }

    public static let shortestMasked = 4

    /// `value` as JSON writes it between quotes: as this server's encoder does, and with `/`
    /// escaped too, as other encoders (a tool's answer) may.
    static func jsonEscaped(_ value: String) -> [String] {
        let quoted = JSONValue.string(value).serialized
        let inner = String(quoted.dropFirst().dropLast())
        return [inner, inner.replacingOccurrences(of: "/", with: "\\/")]
    }
}
