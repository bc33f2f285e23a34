import Foundation
import NIOCore
import Synchronization
import Testing
import TestLanes
import TestSupport
@testable import Bridge

@Suite struct SIPRateLimiterTests {
    static let source = try! SocketAddress(ipAddress: "192.0.2.7", port: 5060)
    static let invite = Array("INVITE sip:1@x SIP/2.0\r\n".utf8)

    @Test func aSourceGetsItsBurstThenItsRate() {
        let limiter = SIPRateLimiter(limit: .init(requestsPerSecond: 10, burst: 5))
        let start = ContinuousClock.now
        let first = (0..<20).filter { _ in limiter.admits(Self.invite, from: Self.source, now: start) }.count
        #expect(first == 5, "the burst")
        let later = (0..<20).filter { _ in limiter.admits(Self.invite, from: Self.source, now: start.advanced(by: .milliseconds(500))) }.count
        #expect(later == 5, "half a second at 10/s")
        let other = try! SocketAddress(ipAddress: "192.0.2.8", port: 5060)
        #expect(limiter.admits(Self.invite, from: other, now: start), "another address has its own bucket")
    }

    @Test func dialogTrafficResponsesAndExemptAddressesAlwaysPass() {
        let limiter = SIPRateLimiter(limit: .init(requestsPerSecond: 1, burst: 1, exempt: ["192.0.2.9"]))
        let now = ContinuousClock.now
        _ = limiter.admits(Self.invite, from: Self.source, now: now)
        #expect(!limiter.admits(Self.invite, from: Self.source, now: now))
        for passing in ["SIP/2.0 200 OK\r\n", "ACK sip:1@x SIP/2.0\r\n", "BYE sip:1@x SIP/2.0\r\n", "CANCEL sip:1@x SIP/2.0\r\n", "\r\n\r\n"] {
            #expect(limiter.admits(Array(passing.utf8), from: Self.source, now: now), "\(passing)")
        }
        #expect(!limiter.admits(Array("OPTIONS sip:1@x SIP/2.0\r\n".utf8), from: Self.source, now: now))
        let proxy = try! SocketAddress(ipAddress: "192.0.2.9", port: 5060)
        #expect((0..<100).allSatisfy { _ in limiter.admits(Self.invite, from: proxy, now: now) })
        #expect(SIPRateLimiter(limit: .init(requestsPerSecond: 0, burst: 1)).admits(Self.invite, from: Self.source, now: now), "0 turns it off")
    }

    @Test func theTableOfSourcesStaysBounded() {
        let limiter = SIPRateLimiter(limit: .init(requestsPerSecond: 1, burst: 2))
        let now = ContinuousClock.now
        for i in 0..<(SIPRateLimiter.maximumSources * 3) {
            let address = try! SocketAddress(ipAddress: "10.\(i >> 16 & 255).\(i >> 8 & 255).\(i & 255)", port: 1)
            #expect(limiter.admits(Self.invite, from: address, now: now))
        }
        #expect(limiter.sourceCount <= SIPRateLimiter.maximumSources)
    }
}

/// What our UAS answers to requests it cannot or will not take, seen by a raw UDP peer.
@Suite(.serialized) struct SIPBadRequestTests {
    final class Inbox: Sendable { let messages = Locked<[SIPMessage]>([]) }

    /// Sends `requests` from one UDP peer, then an OPTIONS from another address (its own bucket
    /// of the rate limit), and returns the answers the peer has once it holds `answers` of them and
    /// that OPTIONS is answered: the user agent takes datagrams in the order they came, so by then
    /// every request has had its answer sent, or will have none. (Loopback can still hand the peer
    /// a datagram after another socket's later one when the sender moved between cores: hence the
    /// count to wait for, rather than a fence.)
    static func exchange(_ requests: [String], port: Int, answers expected: Int) async throws -> [SIPMessage] {
        let inbox = Inbox()
        let peer = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { bytes, _ in
            if let m = try? SIPParser.parse(bytes) { inbox.messages.withLock { $0.append(m) } }
        }
        let (answered, answer) = AsyncStream.makeStream(of: Void.self)
        let marker = try await UDPSocket.bind(host: "127.0.0.2", port: 0) { _, _ in answer.yield() }
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        for request in requests { peer.send(Array(request.replacingOccurrences(of: "PEER", with: "\(peer.localPort)").utf8), to: target) }
        let last = Array(Self.request("OPTIONS", callID: "last").replacingOccurrences(of: "127.0.0.1:PEER", with: "127.0.0.2:\(marker.localPort)").utf8)
        // The marker goes after a flood that can fill the agent's receive buffer while its loop is
        // busy (make test, 7 Dec: 200 datagrams on a loaded machine, the marker never answered), and
        // a datagram the kernel cannot queue is lost: it is sent again until answered, as SIP over
        // UDP retransmits a request (RFC 3261's timer A: 500 ms, doubling).
        try await withTimeout(.seconds(30)) {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    var interval = Duration.milliseconds(500)
                    while true {
                        marker.send(last, to: target)
                        guard (try? await Task.sleep(for: interval)) != nil else { return }   // answered: cancelled
                        interval = min(interval * 2, .seconds(4))
                    }
                }
                for await _ in answered { break }
                group.cancelAll()
            }
        }
        try await inbox.messages.wait(for: "\(expected) answers", timeout: .seconds(30)) { $0.count >= expected }
        await peer.close(); await marker.close()
        return inbox.messages.withLock { $0 }
    }

    static func request(_ method: String, callID: String, extra: String = "", cseq: String? = nil) -> String {
        "\(method) sip:0212@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:PEER;branch=z9hG4bK\(callID)\r\nFrom: <sip:a@127.0.0.1>;tag=t1\r\n"
            + "To: <sip:0212@127.0.0.1>\r\nCall-ID: \(callID)\r\nCSeq: \(cseq ?? "1 \(method)")\r\nMax-Forwards: 70\r\n\(extra)Content-Length: 0\r\n\r\n"
    }

    @Test func eachBadRequestGetsItsOwnAnswerOrNone() async throws {
        try await SIPInboundCallTests.withUserAgent { ua, port in
            let answers = try await Self.exchange([
                Self.request("REGISTER", callID: "reg"),                                    // a method we do not take
                Self.request("FROBNICATE", callID: "frob"),                                  // no RFC defines it
                Self.request("OPTIONS", callID: "cseq", cseq: "1 INVITE"),                   // CSeq names another method
                Self.request("INVITE", callID: "long").replacingOccurrences(of: "Content-Length: 0", with: "Content-Length: 99999"),
                Self.request("INVITE", callID: "nocid").replacingOccurrences(of: "Call-ID: nocid\r\n", with: ""),   // nothing to answer to
                Self.request("ACK", callID: "ack").replacingOccurrences(of: "Content-Length: 0", with: "Content-Length: x"),     // never answered
            ], port: port, answers: 4)
            func code(_ callID: String) -> [Int] { answers.filter { $0.callID == callID }.compactMap(\.statusCode) }
            #expect(code("reg") == [405] && code("frob") == [501], "\(answers.map { "\($0.callID ?? "") \($0.statusCode ?? 0)" })")
            #expect(code("cseq") == [400] && code("long") == [400])
            #expect(answers.first { $0.callID == "long" }?.headers["Warning"] == "399 VoiceBridge \"Content-Length exceeds the body\"")
            #expect(code("ack").isEmpty && answers.allSatisfy { $0.callID != nil && $0.callID != "" })
            #expect(await ua.malformedDatagrams == 4, "cseq, long, nocid and ack")
        }
    }

    @Test func aFloodFromOneAddressIsCutAtTheSocket() async throws {
        var configuration = SIPUserAgent.Configuration()
        configuration.port = 0
        configuration.rateLimit = .init(requestsPerSecond: 0.001, burst: 10)   // what the test's seconds refill is nothing
        let ua = try SIPUserAgent(configuration: configuration)
        let port = try await ua.start()
        let runner = Task { await ua.run() }
        let answers = try await Self.exchange((0..<200).map { Self.request("OPTIONS", callID: "o\($0)") }, port: port, answers: 10)
        runner.cancel()
        await runner.value
        #expect(answers.count == 10, "the burst of 10 answered, the rest dropped: \(answers.count)")
    }
}
