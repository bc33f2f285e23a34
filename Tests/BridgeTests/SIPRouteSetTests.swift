import Foundation
import NIOCore
import Synchronization
import Testing
import TestSupport
@testable import Bridge

/// Behind a record-routing proxy (Kamailio in front of several nodes) a dialog's later requests
/// must go back through the proxy (RFC 3261 §12): a raw UDP socket plays the proxy, and the far
/// end's Contact is a port where nothing listens, so a request sent past the proxy is lost.
@Suite(.serialized) struct SIPRouteSetTests {
    /// What the proxy socket received.
    final class Inbox: Sendable {
        let messages = Locked<[SIPMessage]>([])
    }

    static func collector(_ received: Inbox) async throws -> UDPSocket {
        try await UDPSocket.bind(host: "127.0.0.1", port: 0) { bytes, _ in
            if let m = try? SIPParser.parse(bytes) { received.messages.withLock { $0.append(m) } }
        }
    }

    /// Up to 10 s: the test checks where messages go, not how fast; beside the e2e suites on two
    /// cores a BYE once took longer than the 3 s this allowed.
    static func waitFor(_ received: Inbox, _ what: @escaping @Sendable (SIPMessage) -> Bool) async throws -> SIPMessage? {
        try await received.messages.wait(for: "a message to the proxy") { $0.contains(where: what) }
        return received.messages.value.first(where: what)
    }

    /// The far end's 200 to `request`, sent back from the proxy socket to where its top Via says.
    static func ok(_ request: SIPMessage, from proxy: UDPSocket) throws {
        var h = SIPHeaders()
        for v in request.headers.values("Via") { h.add("Via", v) }
        h.add("From", request.headers["From"]!); h.add("To", request.headers["To"]!); h.add("Call-ID", request.callID!)
        h.add("CSeq", request.headers["CSeq"]!)
        let via = try #require(request.topVia)
        proxy.send(SIPMessage.response(200, headers: h).serialized(), to: try SocketAddress(ipAddress: via.host, port: via.port ?? 5060))
    }

    @Test func anInboundCallAnswersWithTheRecordRouteAndHangsUpThroughTheProxy() async throws {
        try await SIPInboundCallTests.withUserAgent { ua, port in
            let received = Inbox()
            let proxy = try await Self.collector(received)
            let route = "<sip:127.0.0.1:\(proxy.localPort);lr>"
            let sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n"
            let invite = "INVITE sip:0212@127.0.0.1:\(port) SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:\(proxy.localPort);branch=z9hG4bKrr1\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bKcaller1\r\nRecord-Route: \(route)\r\nFrom: <sip:a@127.0.0.1>;tag=t1\r\n"
                + "To: <sip:0212@127.0.0.1>\r\nCall-ID: rr-in-1\r\nCSeq: 1 INVITE\r\nContact: <sip:a@127.0.0.1:9>\r\nMax-Forwards: 69\r\n"
                + "Content-Type: application/sdp\r\nContent-Length: \(sdp.utf8.count)\r\n\r\n" + sdp
            let target = try SocketAddress(ipAddress: "127.0.0.1", port: port)
            proxy.send(Array(invite.utf8), to: target)
            let ok = try #require(try await Self.waitFor(received) { $0.statusCode == 200 })
            #expect(ok.headers.values("Record-Route") == [route], "the 200 copies the Record-Route: \(ok.headers.values("Record-Route"))")
            let ringing = try #require(try await Self.waitFor(received) { $0.statusCode == 180 })
            #expect(ringing.headers.values("Record-Route") == [route])
            let ack = "ACK sip:voicebridge@127.0.0.1:\(port) SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:\(proxy.localPort);branch=z9hG4bKrr2\r\n"
                + "From: <sip:a@127.0.0.1>;tag=t1\r\nTo: <sip:0212@127.0.0.1>;tag=\(ok.to?.tag ?? "")\r\nCall-ID: rr-in-1\r\nCSeq: 1 ACK\r\n"
                + "Max-Forwards: 69\r\nContent-Length: 0\r\n\r\n"
            proxy.send(Array(ack.utf8), to: target)
            var calls = ua.incomingCalls.makeAsyncIterator()
            let call = try #require(await calls.next(), "the call is handed over at its ACK")
            await call.hangUp()
            let bye = try #require(try await Self.waitFor(received) { $0.method == "BYE" }, "the BYE came to the proxy")
            #expect(bye.headers.values("Route") == [route])
            #expect(bye.requestURI == "sip:a@127.0.0.1:9", "addressed to the caller's Contact (loose routing)")
            try Self.ok(bye, from: proxy)
            for await _ in call.events {}
            await proxy.close()
        }
    }

    @Test func anOutboundCallSendsItsACKAndBYEThroughTheProxyThatRecordRouted() async throws {
        let received = Inbox()
        let proxy = try await Self.collector(received)
        let route = "<sip:127.0.0.1:\(proxy.localPort);lr;r2=on>"
        _ = try await SIPOutboundCallTests.withUserAgent { ua in
            let call = try await ua.placeCall(from: "0701", to: "0109", gateway: SIPURI("sip:127.0.0.1:\(proxy.localPort)")!)
            let invite = try #require(try await Self.waitFor(received) { $0.method == "INVITE" })
            var h = SIPHeaders()
            for v in invite.headers.values("Via") { h.add("Via", v) }
            h.add("Record-Route", route)
            h.add("From", invite.headers["From"]!); h.add("To", invite.headers["To"]! + ";tag=far1"); h.add("Call-ID", invite.callID!)
            h.add("CSeq", invite.headers["CSeq"]!); h.add("Contact", "<sip:far@127.0.0.1:9>"); h.add("Content-Type", "application/sdp")
            let answer = Array("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4010 RTP/AVP 0\r\n".utf8)
            let via = try #require(invite.topVia)
            proxy.send(SIPMessage.response(200, headers: h, body: answer).serialized(), to: try SocketAddress(ipAddress: "127.0.0.1", port: via.port ?? 5060))
            let ack = try #require(try await Self.waitFor(received) { $0.method == "ACK" }, "the ACK came to the proxy")
            #expect(ack.headers.values("Route") == [route] && ack.requestURI == "sip:far@127.0.0.1:9")
            await call.hangUp()
            let bye = try #require(try await Self.waitFor(received) { $0.method == "BYE" }, "the BYE came to the proxy")
            #expect(bye.headers.values("Route") == [route] && bye.requestURI == "sip:far@127.0.0.1:9")
            try Self.ok(bye, from: proxy)
            var events: [SIPCallEvent] = []
            for await event in call.events { events.append(event) }
            return events
        }
        await proxy.close()
    }
}
