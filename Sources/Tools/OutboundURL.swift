/// A URL the server connects out to — a tool, an MCP server, a webhook, a media-stream bot — parsed
/// once, here, into the parts every later step uses: the egress check looks at `host` and `port`,
/// secrets are bound to `host`, and what is stored and sent is `description`, this value written
/// out again. Only the plain form `scheme://host[:port][/path][?query]` is taken: userinfo (`@`),
/// fragments (`#`), backslashes, percent-escapes in the host, spaces and control characters are
/// refused, since those are where two URL parsers part ways (`ws://127.0.0.2:1@8.8.8.8/` is
/// 8.8.8.8 to Foundation and 127.0.0.2 to a WebSocket client). Written out, the value means the
/// same to every parser that reads it next.
public struct OutboundURL: Sendable, Hashable, CustomStringConvertible {
    /// `http`, `https`, `ws` or `wss`, lower case.
    public let scheme: String
    /// A name (lower case, no trailing dot), an IPv4 address, or an IPv6 address without brackets.
    public let host: String
    /// As written; nil when the URL leaves it to the scheme.
    public let explicitPort: Int?
    /// `/` when the URL had none; may carry `?query`.
    public let pathAndQuery: String

    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public static let webSchemes: Set<String> = ["http", "https"]
    public static let socketSchemes: Set<String> = ["ws", "wss"]

    /// Longest URL taken (a browser's practical limit is larger; no destination here needs more).
    public static let maxLength = 2048

    /// Parses `text`, taking only `schemes`.
    public init(_ text: String, schemes: Set<String> = webSchemes) throws(Problem) {
        guard text.utf8.count <= Self.maxLength else { throw Problem(message: "is longer than \(Self.maxLength) characters") }
        guard let separator = text.range(of: "://") else { throw Problem(message: Self.expected(schemes)) }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard schemes.contains(scheme) else { throw Problem(message: Self.expected(schemes)) }
        let rest = text[separator.upperBound...]
        for scalar in rest.unicodeScalars {
            if scalar.value <= 0x20 || scalar.value >= 0x7F {
                throw Problem(message: "may hold only printable ASCII: no spaces, control characters or non-ASCII letters (write a name in its xn-- form)")
            }
            switch scalar {
            case "#": throw Problem(message: "may not have a fragment (#…)")
            case "\\": throw Problem(message: "may not hold a backslash")
            default: break
            }
        }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        if authority.contains("@") { throw Problem(message: "may not carry a user name or password (…@host): put credentials in a header") }
        var hostPart = authority
        var port: Int?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw Problem(message: "has an IPv6 address without its closing ]") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Problem(message: "has characters after its IPv6 address") }
                port = try Self.port(after.dropFirst())
            }
            guard !hostPart.isEmpty, hostPart.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw Problem(message: "has an IPv6 address that is not one")
            }
        } else if let colon = authority.firstIndex(of: ":") {
            hostPart = authority[..<colon]
            port = try Self.port(authority[authority.index(after: colon)...])
        }
        var host = hostPart.lowercased()
        if !authority.hasPrefix("[") {
            guard host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_" }) else {
                throw Problem(message: "has a host with characters a host name cannot hold (letters, digits, - . _)")
            }
            if host.hasSuffix(".") { host.removeLast() }
        }
        guard !host.isEmpty, !host.hasPrefix("."), !host.contains("..") else { throw Problem(message: "has no host") }
        var path = String(rest[authorityEnd...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        self.scheme = scheme
        self.host = host
        explicitPort = port
        pathAndQuery = path
    }

    /// Why `text` is not such a URL, or nil.
    public static func problem(_ text: String, schemes: Set<String> = webSchemes) -> String? {
        do throws(Problem) {
            _ = try OutboundURL(text, schemes: schemes)
            return nil
        } catch {
            return error.message
        }
    }

    /// The port connected to: as written, else the scheme's.
    public var port: Int { explicitPort ?? (isSecure ? 443 : 80) }

    /// TLS (https, wss).
    public var isSecure: Bool { scheme == "https" || scheme == "wss" }

    /// The host as a URL writes it (an IPv6 address in brackets).
    public var hostForURL: String { host.contains(":") ? "[\(host)]" : host }

    /// Whether the host is an address rather than a name.
    public var hostIsAddress: Bool { host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." } }

    public var description: String {
        "\(scheme)://\(hostForURL)\(explicitPort.map { ":\($0)" } ?? "")\(pathAndQuery)"
    }

    private static func port(_ text: Substring) throws(Problem) -> Int {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(text), (1...65535).contains(port) else {
            throw Problem(message: "has a port that is not 1 to 65535")
        }
        return port
    }

    private static func expected(_ schemes: Set<String>) -> String {
        "must be an absolute " + schemes.sorted().map { "\($0)://" }.joined(separator: " or ") + " URL"
    }
}
