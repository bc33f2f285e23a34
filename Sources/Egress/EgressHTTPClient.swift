import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Tools
import TraceContext

/// HTTP requests to destinations the egress policy checks: the name is resolved and checked once,
/// and the connection goes to the address that was checked (AsyncHTTPClient's `dnsOverride`; TLS
/// still verifies the certificate against the name). Redirects are not followed — a 3xx is the
/// answer. A connection that fails says only that it failed, not how (refused, reset, filtered),
/// so a stored error cannot be used to map which ports answer behind the server.
public struct EgressHTTPClient: Sendable {
    public struct Response: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var body: ByteBuffer
    }

    /// The connection could not be made or broke before an answer; deliberately vague.
    public struct ConnectionFailed: Error, CustomStringConvertible {
        public var description: String { "could not connect or the connection broke before an answer" }
    }

    public let policy: EgressPolicy

    public init(policy: EgressPolicy) { self.policy = policy }

    /// Sends `request` and reads at most `bodyLimit` bytes of the answer.
    /// The URL is parsed once (`OutboundURL`); what is checked is what AsyncHTTPClient is given, written out again.
    /// Inside a traced call the request carries the call's `traceparent` (`TraceParent.current`), in
    /// place of any the request had; where this node traces the call, the request is a client span
    /// under it, and the `traceparent` names that span.
    public func send(_ request: HTTPClientRequest, timeout: TimeAmount, bodyLimit: Int = 1 << 20) async throws -> Response {
        let url: OutboundURL
        do { url = try OutboundURL(request.url) } catch { throw EgressPolicy.Refusal(host: String(request.url.prefix(100)), reason: "not a URL: \(error)") }
        var request = request
        request.url = url.description
        let address = try await policy.destination(of: url)
        let span = RequestSpan.start(method: request.method.rawValue, host: url.host, port: url.port)
        var answered: Int?
        defer { span?.end(status: answered) }
        if let trace = span?.traceParent ?? TraceParent.current { request.headers.replaceOrAdd(name: TraceParent.field, value: trace.value) }
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(10))
        if !url.hostIsAddress, let ip = address.ipAddress {
            configuration.dnsOverride = [url.host: ip]
        }
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        do {
            let response = try await client.execute(request, timeout: timeout)
            answered = Int(response.status.code)
            let body = try await response.body.collect(upTo: bodyLimit)
            try await client.shutdown()
            return Response(status: Int(response.status.code), headers: response.headers, body: body)
        } catch {
            try? await client.shutdown()
            throw Self.plain(error)
        }
    }

    /// Timeouts stay timeouts (they are retried as such); anything below HTTP becomes `ConnectionFailed`.
    static func plain(_ error: any Error) -> any Error {
        if let error = error as? HTTPClientError {
            if error == .deadlineExceeded || error == .readTimeout { return error }
            if error == .bodyLengthMismatch { return error }
        }
        if error is NIOTooManyBytesError { return error }
        return ConnectionFailed()
    }
}
