import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
import TestLanes
@testable import API

/// `/healthz` answered in the channel pipeline, where no task is needed; the whole path (a stuck
/// pool, the real server) is in Tests/e2e/suite-concurrent-start.sh.
@Suite struct HealthEndpointHandlerTests {
    static func channel() throws -> (EmbeddedChannel, VoiceBridgeServer) {
        let server = try HealthAndShutdownTests.makeServer(engine: .echo)
        return (EmbeddedChannel(handler: HealthEndpointHandler(server: server)), server)
    }

    static func request(_ path: String, method: HTTPRequest.Method = .get) -> HTTPRequestPart {
        .head(HTTPRequest(method: method, scheme: nil, authority: nil, path: path))
    }

    /// The response the handler wrote: status and JSON body, or nil if it wrote none.
    static func answer(_ channel: EmbeddedChannel) throws -> (HTTPResponse.Status, [String: Any])? {
        guard case .head(let head) = try channel.readOutbound(as: HTTPResponsePart.self) else { return nil }
        guard case .body(let body) = try channel.readOutbound(as: HTTPResponsePart.self),
              case .end = try channel.readOutbound(as: HTTPResponsePart.self) else { return nil }
        #expect(head.headerFields[.contentLength] == String(body.readableBytes))
        return (head.status, try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] ?? [:])
    }

    @Test func aHealthCheckIsAnsweredHereAndNotPassedOn() throws {
        let (channel, _) = try Self.channel()
        try channel.writeInbound(Self.request("/healthz"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        let (status, json) = try #require(try Self.answer(channel))
        #expect(status == .ok)
        #expect(json["status"] as? String == "ok")
        #expect(json["cooperative_pool"] as? String == "ok")
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
    }

    @Test func aStalledPoolIsA503ThatSaysSo() throws {
        let (channel, server) = try Self.channel()
        server.health.beat(at: DispatchTime.now().uptimeNanoseconds - 8_000_000_000)
        try channel.writeInbound(Self.request("/healthz?verbose=1"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        let (status, json) = try #require(try Self.answer(channel))
        #expect(status == .serviceUnavailable)
        #expect(json["status"] as? String == "stalled")
        #expect(json["cooperative_pool"] as? String == "stalled")
        #expect((json["pool_stalled_seconds"] as? Double ?? 0) >= 8)
    }

    @Test func otherRequestsAndHealthChecksBehindThemGoToTheRouterInOrder() throws {
        let (channel, _) = try Self.channel()
        for part in [Self.request("/api/calls"), .end(nil), Self.request("/healthz"), .end(nil), Self.request("/healthz", method: .post), .end(nil)] {
            try channel.writeInbound(part)
        }
        var paths: [String] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) {
            if case .head(let head) = part { paths.append(head.path ?? "") }
        }
        #expect(paths == ["/api/calls", "/healthz", "/healthz"])   // one in flight: the router answers, in order
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)

        // Once the router has answered all three, a health check is the handler's again.
        for _ in 0..<3 {
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }
        while try channel.readOutbound(as: HTTPResponsePart.self) != nil {}
        try channel.writeInbound(Self.request("/healthz"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.answer(channel)?.0 == .ok)
    }
}
