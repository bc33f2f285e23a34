/// How a tool's request leaves the server. The server's transport checks the destination against
/// the operator's egress policy (as webhooks do) and follows no redirects; tests may use the same.
public protocol ToolTransport: Sendable {
    /// Sends `request`; reads at most `bodyLimit` bytes of the answer.
    func send(_ request: ToolHTTPRequest, timeout: Duration, bodyLimit: Int) async throws(ToolTransportFailure) -> ToolHTTPResponse
}

public struct ToolHTTPRequest: Sendable, Equatable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?

    public init(method: String, url: String, headers: [(name: String, value: String)], body: [UInt8]?) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.method == b.method && a.url == b.url && a.body == b.body && a.headers.elementsEqual(b.headers) { $0 == $1 }
    }
}

public struct ToolHTTPResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    /// Names lowercased.
    public var headers: [String: String]
    public init(status: Int, body: [UInt8], headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        self.headers = headers
    }
}

public enum ToolTransportFailure: Error, Equatable, Sendable {
    case timeout
    case tooLarge
    /// The egress policy refused the destination.
    case refused(String)
    case connectionFailed
}
