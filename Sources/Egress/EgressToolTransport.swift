import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Pipeline
import Tools

/// The operator's tools reach out the way webhooks do: only where the egress policy allows, to the
/// address that was checked, no redirects followed (`EgressHTTPClient`).
public struct EgressToolTransport: ToolTransport {
    let client: EgressHTTPClient

    public init(policy: EgressPolicy) { client = EgressHTTPClient(policy: policy) }

    public func send(_ request: ToolHTTPRequest, timeout: Duration, bodyLimit: Int) async throws(ToolTransportFailure) -> ToolHTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await client.send(outgoing, timeout: .nanoseconds(Int64(timeout.totalNanoseconds)), bodyLimit: bodyLimit)
            var headers: [String: String] = [:]
            for header in response.headers { headers[header.name.lowercased()] = header.value }
            return ToolHTTPResponse(status: response.status, body: Array(buffer: response.body), headers: headers)
        } catch let refusal as EgressPolicy.Refusal {
            throw .refused(refusal.description)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw .timeout
        } catch is NIOTooManyBytesError {
            throw .tooLarge
        } catch {
            throw .connectionFailed
        }
    }
}
