/// `CSeq: 314159 INVITE`
public struct CSeq: Sendable, Equatable, CustomStringConvertible {
    public var number: UInt32
    public var method: String

    public init(_ number: UInt32, _ method: String) {
        self.number = number
        self.method = method
    }

    public init?(_ text: String) {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count == 2, let number = UInt32(parts[0]) else { return nil }
        self.init(number, String(parts[1]))
    }

    public var description: String { "\(number) \(method)" }
}

/// `;name=value;flag` parameters, order kept, names compared case-insensitively.
public struct SIPParameters: Sendable, Equatable {
    public var items: [(name: String, value: String?)] = []

    public init() {}

    public init(parsing text: Substring) {
        for part in text.split(separator: ";") {
            let trimmed = String(part).trimmingSIPWhitespace()
            guard !trimmed.isEmpty else { continue }
            if let eq = trimmed.firstIndex(of: "=") {
                items.append((String(trimmed[..<eq]).trimmingSIPWhitespace(), String(trimmed[trimmed.index(after: eq)...]).trimmingSIPWhitespace()))
            } else {
                items.append((trimmed, nil))
            }
        }
    }

    public subscript(name: String) -> String? {
        get { items.first { $0.name.caseInsensitiveEquals(name) }?.value ?? nil }
        set {
            if let index = items.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) {
                items[index].value = newValue
            } else {
                items.append((name, newValue))
            }
        }
    }

    public func has(_ name: String) -> Bool { items.contains { $0.name.caseInsensitiveEquals(name) } }

    public var description: String {
        items.map { ";" + $0.name + ($0.value.map { "=" + $0 } ?? "") }.joined()
    }

    public static func == (a: SIPParameters, b: SIPParameters) -> Bool { a.description == b.description }
}

/// `sip:user@host:port;params` (RFC 3261 §19.1), enough of it for a UA.
public struct SIPURI: Sendable, Equatable, CustomStringConvertible {
    public var scheme: String
    public var user: String?
    public var host: String
    public var port: Int?
    public var parameters: SIPParameters

    public init(scheme: String = "sip", user: String? = nil, host: String, port: Int? = nil, parameters: SIPParameters = SIPParameters()) {
        self.scheme = scheme
        self.user = user
        self.host = host
        self.port = port
        self.parameters = parameters
    }

    public init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon].lowercased()
        guard scheme == "sip" || scheme == "sips" || scheme == "tel" else { return nil }
        var rest = text[text.index(after: colon)...]
        // Headers (`?…`) are not used by a UA here; drop them.
        if let question = rest.firstIndex(of: "?") { rest = rest[..<question] }
        var parameters = SIPParameters()
        if let semicolon = rest.firstIndex(of: ";") {
            parameters = SIPParameters(parsing: rest[rest.index(after: semicolon)...])
            rest = rest[..<semicolon]
        }
        var user: String?
        if let at = rest.lastIndex(of: "@") {
            user = String(rest[..<at])
            rest = rest[rest.index(after: at)...]
        }
        var host = Substring(rest)
        var port: Int?
        if host.hasPrefix("[") {   // IPv6 reference
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") { port = Int(after.dropFirst()); if port == nil { return nil } }
            host = host[...close]
        } else if let c = host.lastIndex(of: ":") {
            guard let p = Int(host[host.index(after: c)...]), (1...65535).contains(p) else { return nil }
            port = p
            host = host[..<c]
        }
        guard !host.isEmpty, scheme == "tel" || !host.contains(" ") else { return nil }
        self.init(scheme: scheme, user: user, host: String(host), port: port, parameters: parameters)
    }

    public var description: String {
        var s = scheme + ":"
        if let user { s += user + "@" }
        s += host
        if let port { s += ":\(port)" }
        return s + parameters.description
    }
}

/// `"Display" <sip:alice@example.com>;tag=1928301774`, or a bare URI with parameters.
public struct NameAddress: Sendable, Equatable, CustomStringConvertible {
    public var displayName: String?
    public var uri: SIPURI
    public var parameters: SIPParameters

    public init(displayName: String? = nil, uri: SIPURI, parameters: SIPParameters = SIPParameters()) {
        self.displayName = displayName
        self.uri = uri
        self.parameters = parameters
    }

    public init?(_ text: String) {
        let trimmed = text.trimmingSIPWhitespace()
        if let open = trimmed.firstIndex(of: "<") {
            guard let close = trimmed[open...].firstIndex(of: ">"), let uri = SIPURI(String(trimmed[trimmed.index(after: open)..<close])) else { return nil }
            var name = String(trimmed[..<open]).trimmingSIPWhitespace()
            if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 { name = String(name.dropFirst().dropLast()) }
            let rest = trimmed[trimmed.index(after: close)...]
            let params = rest.firstIndex(of: ";").map { SIPParameters(parsing: rest[rest.index(after: $0)...]) } ?? SIPParameters()
            self.init(displayName: name.isEmpty ? nil : name, uri: uri, parameters: params)
        } else {
            // addr-spec form: parameters after the URI belong to the header, not the URI.
            let parts = trimmed.split(separator: ";", maxSplits: 1)
            guard let first = parts.first, let uri = SIPURI(String(first)) else { return nil }
            self.init(uri: uri, parameters: parts.count > 1 ? SIPParameters(parsing: parts[1]) : SIPParameters())
        }
    }

    public var tag: String? {
        get { parameters["tag"] }
        set { parameters["tag"] = newValue }
    }

    public var description: String {
        var s = ""
        if let displayName { s += "\"\(displayName.replacingQuotes())\" " }
        return s + "<\(uri)>" + parameters.description
    }
}

/// `SIP/2.0/UDP host:port;branch=z9hG4bK…;rport`
public struct Via: Sendable, Equatable, CustomStringConvertible {
    public var transport: String
    public var host: String
    public var port: Int?
    public var parameters: SIPParameters

    public static let magicCookie = "z9hG4bK"

    public init(transport: String = "UDP", host: String, port: Int?, branch: String, rport: Bool = true) {
        self.transport = transport
        self.host = host
        self.port = port
        self.parameters = SIPParameters()
        parameters["branch"] = branch
        if rport { parameters.items.append(("rport", nil)) }
    }

    public init?(_ text: String) {
        let trimmed = text.trimmingSIPWhitespace()
        guard let space = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return nil }
        let protocolParts = trimmed[..<space].split(separator: "/")
        guard protocolParts.count == 3, protocolParts[0].uppercased() == "SIP" else { return nil }
        var sentBy = trimmed[space...].drop { $0 == " " || $0 == "\t" }
        var parameters = SIPParameters()
        if let semicolon = sentBy.firstIndex(of: ";") {
            parameters = SIPParameters(parsing: sentBy[sentBy.index(after: semicolon)...])
            sentBy = sentBy[..<semicolon]
        }
        let hostPort = String(sentBy).trimmingSIPWhitespace()
        guard let uri = SIPURI("sip:" + hostPort) else { return nil }
        transport = protocolParts[2].uppercased()
        host = uri.host
        port = uri.port
        self.parameters = parameters
    }

    public var branch: String? { parameters["branch"] }

    public static func newBranch() -> String { magicCookie + randomToken(16) }

    public var description: String {
        "SIP/2.0/\(transport) \(host)\(port.map { ":\($0)" } ?? "")\(parameters.description)"
    }
}

/// Random lower-case alphanumerics for tags, branches and Call-IDs.
public func randomToken(_ length: Int) -> String {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
    return String((0..<length).map { _ in alphabet.randomElement()! })
}

extension String {
    func replacingQuotes() -> String {
        var out = ""
        for ch in self { if ch == "\"" || ch == "\\" { out.append("\\") }; out.append(ch) }
        return out
    }
}
