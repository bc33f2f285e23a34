import Foundation
import Logging
import MCP

/// MCP's Streamable HTTP transport (client side) over the server's own `ToolTransport`, so an MCP
/// server is reached the way every tool is: through the egress policy, no redirects, bounded
/// answers. Each JSON-RPC message is one POST; the answer is one JSON message, or an SSE stream of
/// them that ends with the response (what the transport allows a server to send on a POST).
/// Messages the server would push on its own (a GET stream) are not asked for: tools need none.
actor MCPHTTPTransport: Transport {
    nonisolated let logger = Logger(label: "mcp")
    let endpoint: String
    let headers: [(name: String, value: String)]
    let transport: any ToolTransport
    let timeout: Duration
    private var sessionID: String?
    private let messages: AsyncThrowingStream<Data, any Error>
    private let input: AsyncThrowingStream<Data, any Error>.Continuation

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(endpoint: String, headers: [(name: String, value: String)], transport: any ToolTransport, timeout: Duration) {
        self.endpoint = endpoint
        self.headers = headers
        self.transport = transport
        self.timeout = timeout
        (messages, input) = AsyncThrowingStream.makeStream(of: Data.self, bufferingPolicy: .bufferingOldest(64))
    }

    func connect() async throws {}

    func disconnect() async {
        input.finish()
    }

    func receive() -> AsyncThrowingStream<Data, any Error> { messages }

    func send(_ data: Data) async throws {
        var headers = headers + [("Accept", "application/json, text/event-stream"), ("Content-Type", "application/json"),
                                 ("MCP-Protocol-Version", Version.latest)]
        if let sessionID { headers.append(("Mcp-Session-Id", sessionID)) }
        let response: ToolHTTPResponse
        do {
            response = try await transport.send(ToolHTTPRequest(method: "POST", url: endpoint, headers: headers, body: Array(data)),
                                                timeout: timeout, bodyLimit: ToolDefinition.answerLimit * 4)
        } catch {
            throw Failure(description: "the MCP server could not be reached: \(error)")
        }
        if let id = response.headers["mcp-session-id"] { sessionID = id }
        guard (200..<300).contains(response.status) else { throw Failure(description: "the MCP server answered HTTP \(response.status)") }
        for message in Self.messages(in: response) { input.yield(message) }
    }

    /// The JSON-RPC messages of an answer: its body, or each SSE event's data.
    static func messages(in response: ToolHTTPResponse) -> [Data] {
        guard !response.body.isEmpty else { return [] }   // 202 Accepted: a notification
        let text = String(decoding: response.body, as: UTF8.self)
        guard response.headers["content-type"]?.hasPrefix("text/event-stream") == true else { return [Data(response.body)] }
        var events: [Data] = []
        var data: [Substring] = []
        // `isNewline`: "\r\n" is one Character in Swift, and SSE allows CRLF, LF or CR.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            if line.isEmpty {
                if !data.isEmpty { events.append(Data(data.joined(separator: "\n").utf8)) }
                data = []
            } else if line.hasPrefix("data:") {
                data.append(line.dropFirst(5).drop { $0 == " " })
            }
        }
        if !data.isEmpty { events.append(Data(data.joined(separator: "\n").utf8)) }
        return events
    }
}
