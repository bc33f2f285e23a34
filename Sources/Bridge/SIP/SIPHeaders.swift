/// SIP headers in wire order, looked up case-insensitively and by compact form (RFC 3261 §7.3.3).
public struct SIPHeaders: Sendable, Equatable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    /// Compact forms and their full names.
    static let compactForms: [String: String] = [
        "v": "Via", "f": "From", "t": "To", "i": "Call-ID", "m": "Contact", "l": "Content-Length",
        "c": "Content-Type", "e": "Content-Encoding", "k": "Supported", "s": "Subject", "o": "Event",
        "r": "Refer-To", "b": "Referred-By", "x": "Session-Expires", "u": "Allow-Events",
    ]

    /// The canonical spelling we write for well-known headers, keyed by lower-cased name.
    static let canonical: [String: String] = Dictionary(uniqueKeysWithValues: [
        "Via", "From", "To", "Call-ID", "CSeq", "Contact", "Max-Forwards", "Content-Length", "Content-Type",
        "Route", "Record-Route", "Allow", "Supported", "User-Agent", "Server", "WWW-Authenticate",
        "Proxy-Authenticate", "Authorization", "Proxy-Authorization", "Expires", "Accept", "Event", "Subject",
        "Content-Encoding", "Refer-To", "Referred-By", "Session-Expires", "Allow-Events", "Reason", "Require",
        "X-Outbound-Call-ID",
    ].map { ($0.lowercased(), $0) })

    public init() {}

    public init(_ fields: [(String, String)]) {
        for (name, value) in fields { add(name, value) }
    }

    static func normalize(_ name: String) -> String {
        let lower = name.lowercased()
        if let full = compactForms[lower] { return full }
        return canonical[lower] ?? name
    }

    public mutating func add(_ name: String, _ value: String) {
        fields.append((Self.normalize(name), value))
    }

    /// Replaces every field of that name with one value (or removes them for nil).
    public mutating func set(_ name: String, _ value: String?) {
        let normalized = Self.normalize(name)
        let index = fields.firstIndex { $0.name.caseInsensitiveEquals(normalized) }
        fields.removeAll { $0.name.caseInsensitiveEquals(normalized) }
        guard let value else { return }
        fields.insert((normalized, value), at: index ?? fields.count)
    }

    public mutating func remove(_ name: String) { set(name, nil) }

    /// The first field value with that name.
    public subscript(name: String) -> String? {
        let normalized = Self.normalize(name)
        return fields.first { $0.name.caseInsensitiveEquals(normalized) }?.value
    }

    /// Every value of that header, comma-separated lists split (not inside quotes or <…>).
    public func values(_ name: String) -> [String] {
        let normalized = Self.normalize(name)
        return fields.filter { $0.name.caseInsensitiveEquals(normalized) }.flatMap { Self.splitList($0.value) }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (a: SIPHeaders, b: SIPHeaders) -> Bool {
        a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Splits `a, "b, c" <sip:x>, d` at top-level commas.
    static func splitList(_ value: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var inQuotes = false
        var angle = 0
        var escaped = false
        for ch in value {
            if escaped { current.append(ch); escaped = false; continue }
            switch ch {
            case "\\" where inQuotes: escaped = true; current.append(ch)
            case "\"": inQuotes.toggle(); current.append(ch)
            case "<" where !inQuotes: angle += 1; current.append(ch)
            case ">" where !inQuotes: angle = Swift.max(0, angle - 1); current.append(ch)
            case "," where !inQuotes && angle == 0:
                parts.append(current.trimmingSIPWhitespace()); current = ""
            default: current.append(ch)
            }
        }
        let last = current.trimmingSIPWhitespace()
        if !last.isEmpty || !parts.isEmpty { parts.append(last) }
        return parts.filter { !$0.isEmpty }
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        count == other.count && lowercased() == other.lowercased()
    }

    func trimmingSIPWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
