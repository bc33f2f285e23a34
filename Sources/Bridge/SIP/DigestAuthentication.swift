import Crypto

/// HTTP Digest for SIP (RFC 3261 §22, RFC 2617): answers a 401/407 challenge with MD5, qop=auth.
public struct DigestChallenge: Sendable, Equatable {
    public var realm: String
    public var nonce: String
    public var opaque: String?
    public var algorithm: String?
    public var qop: [String]

    /// Parses `Digest realm="…", nonce="…", qop="auth,auth-int", opaque="…"`.
    public init?(_ header: String) {
        let trimmed = header.trimmingSIPWhitespace()
        guard trimmed.lowercased().hasPrefix("digest") else { return nil }
        var fields: [String: String] = [:]
        for part in SIPHeaders.splitList(String(trimmed.dropFirst(6))) {
            guard let eq = part.firstIndex(of: "=") else { continue }
            var value = String(part[part.index(after: eq)...]).trimmingSIPWhitespace()
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            fields[String(part[..<eq]).trimmingSIPWhitespace().lowercased()] = value
        }
        guard let realm = fields["realm"], let nonce = fields["nonce"] else { return nil }
        if let algorithm = fields["algorithm"], algorithm.uppercased() != "MD5" { return nil }
        self.realm = realm
        self.nonce = nonce
        self.opaque = fields["opaque"]
        self.algorithm = fields["algorithm"]
        self.qop = (fields["qop"] ?? "").split(separator: ",").map { String($0).trimmingSIPWhitespace() }
    }

    /// The `Authorization` / `Proxy-Authorization` value for `method` on `uri`.
    public func authorization(method: String, uri: String, username: String, password: String,
                              cnonce: String = randomToken(16), nonceCount: Int = 1) -> String {
        let ha1 = Self.md5Hex("\(username):\(realm):\(password)")
        let ha2 = Self.md5Hex("\(method):\(uri)")
        var value = "Digest username=\"\(username)\", realm=\"\(realm)\", nonce=\"\(nonce)\", uri=\"\(uri)\""
        if qop.contains("auth") {
            let nc = String(format8Hex: nonceCount)
            let response = Self.md5Hex("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)")
            value += ", response=\"\(response)\", qop=auth, nc=\(nc), cnonce=\"\(cnonce)\""
        } else {
            value += ", response=\"\(Self.md5Hex("\(ha1):\(nonce):\(ha2)"))\""
        }
        value += ", algorithm=MD5"
        if let opaque { value += ", opaque=\"\(opaque)\"" }
        return value
    }

    static func md5Hex(_ text: String) -> String {
        Insecure.MD5.hash(data: Array(text.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}

extension String {
    init(format8Hex value: Int) {
        let hex = String(value, radix: 16)
        self = String(repeating: "0", count: Swift.max(0, 8 - hex.count)) + hex
    }
}
