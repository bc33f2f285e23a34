import Bridge

extension VoiceBridgeConfig {
    /// The longest caller display name accepted (it travels in every INVITE's From).
    public static let maximumDisplayNameLength = 64

    /// Why `name` cannot be a caller display name, or nil. It is written into SIP's From header: a
    /// control character (a CR or LF above all) would start a header of the sender's own.
    public static func displayNameProblem(_ name: String) -> String? {
        if containsControlCharacters(name) { return "must not contain control characters (line breaks, tabs)" }
        if name.count > maximumDisplayNameLength { return "must be at most \(maximumDisplayNameLength) characters" }
        return nil
    }

    /// Any C0 control character, or DEL: what no value bound for a SIP header, a URI or a log line may hold.
    public static func containsControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// What is wrong with a transfer target, if anything: a phone number, or a `sip:` URI.
    public static func transferTargetProblem(_ target: String) -> String? {
        if containsControlCharacters(target) { return "must not contain control characters (line breaks, tabs)" }
        if target.hasPrefix("sip:") {
            return sipTarget(target) == nil ? "a SIP target is sip:user@host[:port] with no parameters (;…) or headers (?…), got '\(target)'" : nil
        }
        return OutboundCallRequest.normalize(number: target) == nil ? "must be a phone number (3 to 20 digits) or a sip: URI, got '\(target)'" : nil
    }

    static func isSIPURI(_ text: String) -> Bool {
        guard text.hasPrefix("sip:") else { return false }
        let hostPort = text.dropFirst(4).split(separator: "@").last ?? ""
        let parts = hostPort.split(separator: ":", omittingEmptySubsequences: false)
        guard let host = parts.first, !host.isEmpty, parts.count <= 2 else { return false }
        if parts.count == 2 { return Int(parts[1]).map { (1...65535).contains($0) } ?? false }
        return true
    }

    /// A `sip:` transfer target as the SIP stack reads it (`SIPURI`, the parser the REFER and the
    /// trunk's INVITE use), taken only in the plain form `sip:user@host[:port]` that it writes out
    /// again unchanged: parameters, headers, a second `@` or an escape would let a check on the
    /// text see one host while the stack dials another.
    public static func sipTarget(_ text: String) -> SIPURI? {
        guard text.hasPrefix("sip:"), let uri = SIPURI(text), uri.scheme == "sip", uri.parameters.items.isEmpty,
              uri.description == text else { return nil }
        let userCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.!~*'()&=+$,")
        if let user = uri.user, user.isEmpty || !user.allSatisfy(userCharacters.contains) { return nil }
        let host = uri.host
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }) else { return nil }
        }
        return uri
    }
}
