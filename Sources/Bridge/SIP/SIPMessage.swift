/// A SIP request or response (RFC 3261 §7): start line, headers, body.
public struct SIPMessage: Sendable, Equatable {
    public enum StartLine: Sendable, Equatable {
        case request(method: String, uri: String)
        case response(code: Int, reason: String)
    }

    public var startLine: StartLine
    public var headers: SIPHeaders
    public var body: [UInt8]

    public init(_ startLine: StartLine, headers: SIPHeaders = SIPHeaders(), body: [UInt8] = []) {
        self.startLine = startLine
        self.headers = headers
        self.body = body
    }

    public static func request(_ method: String, uri: String, headers: SIPHeaders = SIPHeaders(), body: [UInt8] = []) -> SIPMessage {
        SIPMessage(.request(method: method, uri: uri), headers: headers, body: body)
    }

    public static func response(_ code: Int, _ reason: String? = nil, headers: SIPHeaders = SIPHeaders(), body: [UInt8] = []) -> SIPMessage {
        SIPMessage(.response(code: code, reason: reason ?? SIPMessage.reasonPhrase(code)), headers: headers, body: body)
    }

    public var method: String? {
        if case .request(let method, _) = startLine { return method }
        return nil
    }

    public var requestURI: String? {
        if case .request(_, let uri) = startLine { return uri }
        return nil
    }

    public var statusCode: Int? {
        if case .response(let code, _) = startLine { return code }
        return nil
    }

    public var isRequest: Bool { method != nil }

    public var callID: String? { headers["Call-ID"] }
    public var cseq: CSeq? { headers["CSeq"].flatMap(CSeq.init) }
    public var topVia: Via? { headers.values("Via").first.flatMap(Via.init) }
    public var from: NameAddress? { headers["From"].flatMap(NameAddress.init) }
    public var to: NameAddress? { headers["To"].flatMap(NameAddress.init) }
    public var contact: NameAddress? { headers.values("Contact").first.flatMap(NameAddress.init) }

    /// The message on the wire. Content-Length is always written, and always right. No value can
    /// add a line: a control character in the start line or a header (a CR or LF that got past the
    /// API's and the configuration's checks) is written as a space.
    public func serialized() -> [UInt8] {
        var text: String
        switch startLine {
        case .request(let method, let uri): text = "\(method.oneLine) \(uri.oneLine) SIP/2.0\r\n"
        case .response(let code, let reason): text = "SIP/2.0 \(code) \(reason.oneLine)\r\n"
        }
        for (name, value) in headers where !name.caseInsensitiveEquals("Content-Length") {
            text += "\(name.oneLine): \(value.oneLine)\r\n"
        }
        text += "Content-Length: \(body.count)\r\n\r\n"
        return Array(text.utf8) + body
    }

    public static func reasonPhrase(_ code: Int) -> String {
        switch code {
        case 100: "Trying"
        case 180: "Ringing"
        case 183: "Session Progress"
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 407: "Proxy Authentication Required"
        case 408: "Request Timeout"
        case 480: "Temporarily Unavailable"
        case 481: "Call/Transaction Does Not Exist"
        case 486: "Busy Here"
        case 487: "Request Terminated"
        case 488: "Not Acceptable Here"
        case 500: "Server Internal Error"
        case 503: "Service Unavailable"
        case 603: "Decline"
        default: code < 300 ? "OK" : "Error"
        }
    }
}

extension String {
    /// The text with every control character but HTAB replaced by a space (no copy when there is none).
    var oneLine: String {
        guard utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { return self }
        return String(decoding: utf8.map { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F ? 0x20 : $0 }, as: UTF8.self)
    }
}
