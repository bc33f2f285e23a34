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
