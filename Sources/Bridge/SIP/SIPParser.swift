/// Parses one SIP message from a UDP datagram (RFC 3261 §7, §18.3).
///
/// Hostile input gets a typed error, never a crash: sizes are bounded before anything is copied,
/// every index is checked, and text must be UTF-8 without NUL bytes.
public enum SIPParser {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case empty
        case tooLarge(Int)
        case containsNUL
        case invalidUTF8
        case missingHeaderEnd
        case malformedStartLine(String)
        case unsupportedVersion(String)
        case malformedHeader(String)
        case bareLineBreak(String)
        case headerTooLong(Int)
        case tooManyHeaders
        case missingHeader(String)
        case invalidHeaderValue(String)
        case invalidContentLength(String)
        case bodyShorterThanContentLength(declared: Int, actual: Int)

        public var description: String {
            switch self {
            case .empty: "empty message"
            case .tooLarge(let n): "message of \(n) bytes exceeds \(SIPParser.maximumMessageSize)"
            case .containsNUL: "NUL byte in the header section"
            case .invalidUTF8: "header section is not valid UTF-8"
            case .missingHeaderEnd: "no blank line ends the headers"
            case .malformedStartLine(let line): "malformed start line: \(line.prefix(80))"
            case .unsupportedVersion(let v): "unsupported SIP version \(v.prefix(20))"
            case .malformedHeader(let line): "malformed header line: \(line.prefix(80))"
            case .bareLineBreak(let line): "a CR or LF inside a line: \(line.prefix(80).debugDescription)"
            case .headerTooLong(let n): "header line of \(n) bytes exceeds \(SIPParser.maximumHeaderLineLength)"
            case .tooManyHeaders: "more than \(SIPParser.maximumHeaderCount) header fields"
            case .missingHeader(let name): "missing mandatory header \(name)"
            case .invalidHeaderValue(let name): "invalid value in \(name)"
            case .invalidContentLength(let v): "invalid Content-Length \(v.prefix(20))"
            case .bodyShorterThanContentLength(let declared, let actual): "Content-Length \(declared) but only \(actual) body bytes"
            }
        }
    }

    /// What a 400's Warning says: the kind of problem, never the sender's bytes.
    static func warning(for failure: Failure) -> String {
        switch failure {
        case .missingHeader(let name): "missing \(name)"
        case .invalidHeaderValue(let name): "invalid \(name)"
        case .invalidContentLength: "invalid Content-Length"
        case .bodyShorterThanContentLength: "Content-Length exceeds the body"
        default: "malformed request"
        }
    }

    public static let maximumMessageSize = 65_507   // the largest UDP payload
    public static let maximumHeaderLineLength = 8_192
    public static let maximumHeaderCount = 128

    static let requestMandatory = ["Via", "From", "To", "Call-ID", "CSeq"]

    public static func parse(_ bytes: [UInt8]) throws(Failure) -> SIPMessage {
        let (startLine, headers, bodyStart) = try parseHeaders(bytes)
        for name in requestMandatory where headers[name] == nil { throw .missingHeader(name) }
        if case .request(let method, _) = startLine {
            guard let cseq = headers["CSeq"].flatMap(CSeq.init), cseq.method == method || method == "ACK" && cseq.method == "ACK" else {
                throw .invalidHeaderValue("CSeq")
            }
        } else if headers["CSeq"].flatMap(CSeq.init) == nil {
            throw .invalidHeaderValue("CSeq")
        }
        guard headers.values("Via").first.flatMap(Via.init) != nil else { throw .invalidHeaderValue("Via") }

        let available = bytes.count - bodyStart
        var bodyLength = available
        if let declared = headers["Content-Length"] {
            guard let length = Int(declared), length >= 0 else { throw .invalidContentLength(declared) }
            guard length <= available else { throw .bodyShorterThanContentLength(declared: length, actual: available) }
            bodyLength = length   // extra bytes in a datagram are discarded (§18.3)
        }
        return SIPMessage(startLine, headers: headers, body: Array(bytes[bodyStart..<bodyStart + bodyLength]))
    }

    /// A request `parse` refused for what its headers say (a missing or bad CSeq, From, To or
    /// Call-ID, a bad Content-Length), not for how it is framed: its start line and headers, so that
    /// a 400 can be sent back along its Via (RFC 3261 §8.2, §18.3). Nil when nothing can be answered:
    /// not a request, an ACK (never answered), or no Via to answer along.
    public static func answerableBadRequest(_ bytes: [UInt8]) -> SIPMessage? {
        guard let (startLine, headers, _) = try? parseHeaders(bytes), case .request(let method, _) = startLine, method != "ACK",
              headers.values("Via").first.flatMap(Via.init) != nil, headers["Call-ID"] != nil, headers["From"] != nil, headers["To"] != nil
        else { return nil }
        return SIPMessage(startLine, headers: headers)
    }

    /// The framing: start line and header fields, bounded in size and count, and where the body starts.
    static func parseHeaders(_ bytes: [UInt8]) throws(Failure) -> (SIPMessage.StartLine, SIPHeaders, bodyStart: Int) {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= maximumMessageSize else { throw .tooLarge(bytes.count) }
        // Keep-alive CRLFs and leading blank lines are allowed before the start line (§7.5).
        var start = 0
        while start + 1 < bytes.count, bytes[start] == 13, bytes[start + 1] == 10 { start += 2 }
        guard let headerEnd = findHeaderEnd(bytes, from: start) else { throw .missingHeaderEnd }
        let headerBytes = bytes[start..<headerEnd]
        guard !headerBytes.contains(0) else { throw .containsNUL }
        guard let text = String(validating: headerBytes, as: UTF8.self) else { throw .invalidUTF8 }

        var lines = unfold(text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init))
        guard !lines.isEmpty else { throw .empty }
        // Lines end with CRLF only (§7): a bare CR or LF inside one would become a line of its own
        // wherever the value is written again — a header injected by the sender.
        if let broken = lines.first(where: { $0.unicodeScalars.contains { $0 == "\r" || $0 == "\n" } }) {
            throw .bareLineBreak(broken)
        }
        let startLine = try parseStartLine(lines.removeFirst())
        guard lines.count <= maximumHeaderCount else { throw .tooManyHeaders }

        var headers = SIPHeaders()
        for line in lines where !line.isEmpty {
            guard line.utf8.count <= maximumHeaderLineLength else { throw .headerTooLong(line.utf8.count) }
            guard let colon = line.firstIndex(of: ":") else { throw .malformedHeader(line) }
            let name = String(line[..<colon]).trimmingSIPWhitespace()
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.!%*_+`'~".contains($0)) }) else {
                throw .malformedHeader(line)
            }
            headers.add(name, String(line[line.index(after: colon)...]).trimmingSIPWhitespace())
        }
        return (startLine, headers, headerEnd + 4)
    }

    static func findHeaderEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var i = start
        while i + 3 < bytes.count {
            if bytes[i] == 13, bytes[i + 1] == 10, bytes[i + 2] == 13, bytes[i + 3] == 10 { return i }
            i += 1
        }
        return nil
    }

    /// Joins continuation lines (starting with space or tab) onto the line before (§7.3.1).
    static func unfold(_ lines: [String]) -> [String] {
        var out: [String] = []
        for line in lines {
            if let first = line.first, first == " " || first == "\t", !out.isEmpty {
                out[out.count - 1] += " " + line.trimmingSIPWhitespace()
            } else {
                out.append(line)
            }
        }
        return out
    }

    static func parseStartLine(_ line: String) throws(Failure) -> SIPMessage.StartLine {
        guard line.utf8.count <= maximumHeaderLineLength else { throw .headerTooLong(line.utf8.count) }
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2 else { throw .malformedStartLine(line) }
        if parts[0].hasPrefix("SIP/") {
            guard parts[0] == "SIP/2.0" else { throw .unsupportedVersion(String(parts[0])) }
            guard parts[1].count == 3, let code = Int(parts[1]), (100...699).contains(code) else { throw .malformedStartLine(line) }
            return .response(code: code, reason: parts.count > 2 ? String(parts[2]) : "")
        }
        guard parts.count == 3 else { throw .malformedStartLine(line) }
        guard parts[2] == "SIP/2.0" else { throw .unsupportedVersion(String(parts[2])) }
        let method = String(parts[0])
        guard method.allSatisfy({ $0.isASCII && ($0.isUppercase || $0 == "-") }), SIPURI(String(parts[1])) != nil else {
            throw .malformedStartLine(line)
        }
        return .request(method: method, uri: String(parts[1]))
    }
}
