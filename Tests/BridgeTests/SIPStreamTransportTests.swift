import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing
import TestLanes
import TestSupport
@testable import Bridge

/// SIP over TCP and TLS: framing a byte stream, calling sipp over TCP, TLS between two transports.
@Suite(.serialized, .tags(.timed)) struct SIPStreamTransportTests {
    static let invite = "INVITE sip:1@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.1:5060;branch=z9hG4bKa\r\nContent-Length: 5\r\n\r\nhello"
    static let options = "OPTIONS sip:1@127.0.0.1 SIP/2.0\r\nl: 0\r\nCall-ID: x\r\n\r\n"

    static func frames(_ chunks: [String]) throws -> [String] {
        var buffer = ByteBuffer()
        var framer = SIPStreamFramer()
        var out: [String] = []
        for chunk in chunks {
            buffer.writeString(chunk)
            while let message = try framer.nextMessage(in: &buffer) {
                out.append(String(decoding: message, as: UTF8.self))
            }
        }
        return out
    }

    @Test func aStreamIsCutIntoMessagesByContentLengthWhereverItBreaks() throws {
        let stream = "\r\n\r\n" + Self.invite + "\r\n" + Self.options + Self.invite
        #expect(try Self.frames([stream]) == [Self.invite, Self.options, Self.invite], "keep-alive CRLFs skipped, compact `l:` read")
        for cut in stride(from: 1, to: stream.utf8.count, by: 7) {   // any split point, as TCP may deliver it
            let bytes = Array(stream.utf8)
            let parts = [String(decoding: bytes[..<cut], as: UTF8.self), String(decoding: bytes[cut...], as: UTF8.self)]
            #expect(try Self.frames(parts) == [Self.invite, Self.options, Self.invite], "split at \(cut)")
        }
        let bytes = stream.map(String.init)   // one byte per segment: the blank line found across segments
        #expect(try Self.frames(bytes) == [Self.invite, Self.options, Self.invite], "one byte at a time")
    }

    @Test func aStreamThatCannotBeFramedIsAnErrorNotAnAllocation() {
        #expect(throws: SIPStreamFramer.Failure.headerTooLong) { try Self.frames([String(repeating: "X-Pad: y\r\n", count: 7000)]) }
        #expect(throws: SIPStreamFramer.Failure.bodyTooLong) { try Self.frames(["INVITE sip:1@h SIP/2.0\r\nContent-Length: 999999999\r\n\r\n"]) }
        #expect(throws: SIPStreamFramer.Failure.badContentLength) { try Self.frames(["INVITE sip:1@h SIP/2.0\r\nContent-Length: -4\r\n\r\n"]) }
        #expect(throws: SIPStreamFramer.Failure.badContentLength) { try Self.frames(["INVITE sip:1@h SIP/2.0\r\nContent-Length: 9999999999999\r\n\r\n"]) }
    }

    // sipp calling in over TCP: SIPInboundCallTests.aCallerIsAnsweredAndHangsUp(transport: .tcp).

    @Test func weCallSippOverTCPAndHangUp() async throws {
        let sipPort = freeSippPort(), mediaPort = freeSippMediaPort()
        let sipp = try Sipp(arguments: ["-sn", "uas", "-t", "t1", "-i", "127.0.0.1", "-p", "\(sipPort)", "-mp", "\(mediaPort)", "-rtp_echo"])
        try await sipp.listening(on: sipPort, tcp: true)
        let (events, result) = try await SIPOutboundCallTests.withUserAgent(transport: .tcp) { ua in
            let call = try await ua.placeCall(from: "0701", to: "0109", gateway: SIPURI("sip:127.0.0.1:\(sipPort)")!)
            var events = await SIPOutboundCallTests.collect(call) { $0 == .answered || { if case .failed = $0 { true } else { false } }($0) }
            if events.last == .answered {
                try await Task.sleep(for: .milliseconds(500))
                await call.hangUp()
                events += await SIPOutboundCallTests.collect(call) { _ in false }
            }
            // sipp counts a connection closed during its post-BYE wait as a failed call: keep ours open until it is done.
            return (events, await sipp.wait())
        }
        #expect(events.contains(.trying) || events.contains(.answered))
        #expect(events.last == .ended(.localHangup), "\(events)")
        #expect(result.status == 0, "sipp: \(result.output.suffix(1500))")
    }

    @Test func tlsCarriesMessagesBothWaysAndRefusesAnUntrustedPeer() async throws {
        let good = try TLSCertificate.make(), stranger = try TLSCertificate.make()
        let receivedByServer = Locked<[String]>([]), receivedByClient = Locked<[String]>([]), senders = Mutex<[SocketAddress]>([])
        let server = try await SIPStreamTransport.listen(host: "127.0.0.1", port: 0, tls: good.files(trusting: good)) { bytes, from in
            receivedByServer.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
            senders.withLock { $0.append(from) }
        }
        let client = try await SIPStreamTransport.listen(host: "127.0.0.1", port: 0, tls: good.files(trusting: good)) { bytes, _ in
            receivedByClient.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
        }
        let serverAddress = try SocketAddress(ipAddress: "127.0.0.1", port: server.localPort)
        client.send(Array(Self.invite.utf8), to: serverAddress)
        client.send(Array(Self.options.utf8), to: serverAddress)   // queued behind the handshake, in order
        try await receivedByServer.wait(for: "the INVITE and the OPTIONS") { $0.count == 2 }
        #expect(receivedByServer.withLock { $0 } == [Self.invite, Self.options])
        // The server answers on the connection the request came in on: no second connection.
        let from = try #require(senders.withLock { $0.first })
        #expect(from.port != client.localPort, "the request came from the client's ephemeral port, not its listener")
        server.send(Array("SIP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n".utf8), to: from)
        try await receivedByClient.wait(for: "the 200") { $0.count == 1 }
        #expect(receivedByClient.withLock { $0 } == ["SIP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n"])
        #expect(server.connectionCount == 1 && client.connectionCount == 1)

        let unreachable = Locked<[SocketAddress]>([])
        let wary = try await SIPStreamTransport.listen(host: "127.0.0.1", port: 0, tls: stranger.files(trusting: stranger),
                                                       unreachable: { address, _ in unreachable.withLock { $0.append(address) } }) { _, _ in }
        wary.send(Array(Self.invite.utf8), to: serverAddress)   // the server's certificate is not one `wary` trusts
        // The failed connection leaves the table before the peer is reported unreachable, whatever
        // its close waits for (NIOSSL's shutdown can wait 5 s for the peer's close_notify).
        try await unreachable.wait(for: "the peer reported unreachable") { !$0.isEmpty }
        #expect(unreachable.withLock { $0 }.first == serverAddress, "the peer is reported unreachable")
        #expect(wary.connectionCount == 0, "the failed connection left the table")
        #expect(receivedByServer.withLock { $0.count } == 2, "nothing arrives over a connection whose certificate did not verify")
        await wary.close(); await client.close(); await server.close()
    }
}

extension SIPStreamTransportTests {
    /// A TCP connection refused (nobody listens) fails the INVITE at once as a transport error,
    /// not 32 s later at Timer B; so does a TLS peer whose certificate we do not trust.
    @Test(arguments: [SIPTransportKind.tcp, .tls])
    func anUnreachablePeerFailsTheCallAtOnce(transport: SIPTransportKind) async throws {
        let ours = try TLSCertificate.make(), theirs = try TLSCertificate.make()
        let untrusted = try await SIPStreamTransport.listen(host: "127.0.0.1", port: 0, tls: theirs.files(trusting: theirs)) { _, _ in }
        let clock = ContinuousClock(), started = clock.now
        let (target, events) = try await withRefusingTCPPort { refusing in   // over TCP: a port nobody listens on
            let target = transport == .tls ? untrusted.localPort : refusing
            return (target, try await SIPOutboundCallTests.withUserAgent(transport: transport,
                                                                         tls: transport == .tls ? ours.files(trusting: ours) : nil) { ua in
                let call = try await ua.placeCall(from: "0701", to: "0109", gateway: SIPURI("sip:127.0.0.1:\(target)")!)
                return await SIPOutboundCallTests.collect(call) { if case .failed = $0 { true } else { false } }
            })
        }
        let took = started.duration(to: clock.now)
        guard case .failed(.transport(let reason))? = events.last else { Issue.record("expected a transport failure, got \(events)"); return }
        #expect(reason.contains("127.0.0.1") && reason.contains("\(target)"), "\(reason)")
        #expect(took < .seconds(5), "failed after \(took), not at Timer B (32 s)")
        await untrusted.close()
    }

    @Test func aConnectionThatNeverSendsAMessageIsClosedButAQuietCallIsNot() async throws {
        let server = try await SIPStreamTransport.listen(host: "127.0.0.1", port: 0, tls: nil, firstMessageDeadline: .milliseconds(400)) { _, _ in }
        let peer = try await SIPStreamTransport.listen(host: "127.0.0.1", port: 0, tls: nil) { _, _ in }
        let silent = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: server.localPort).get()
        try await waitUntil { server.connectionCount == 1 }
        peer.send(Array(Self.options.utf8), to: try SocketAddress(ipAddress: "127.0.0.1", port: server.localPort))
        try await waitUntil { server.connectionCount == 2 }
        try await Task.sleep(for: .milliseconds(1500))
        #expect(!silent.isActive, "the connection that sent nothing was closed")
        #expect(server.connectionCount == 1 && peer.connectionCount == 1, "the one that spoke stays, quiet or not")
        await peer.close(); await server.close()
    }

    /// One host opening connection after connection gets its share of the table and no more; the
    /// rest are closed at once and counted, and another host still gets in and is heard.
    @Test func oneAddressCannotTakeTheWholeConnectionTable() async throws {
        let refusals = Locked(0)
        let heard = Locked<[String]>([])
        let server = try await SIPStreamTransport.listen(host: "127.0.0.1", port: 0, tls: nil, refused: { _ in refusals.withLock { $0 += 1 } }) { _, from in
            heard.withLock { $0.append(from.ipAddress ?? "") }
        }
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        var opened: [any Channel] = []
        for _ in 0..<(SIPStreamTransport.maximumConnectionsPerAddress + 8) {
            opened.append(try await bootstrap.connect(host: "127.0.0.1", port: server.localPort).get())
        }
        let flood = opened
        try await refusals.wait(for: "8 refusals") { $0 == 8 }
        #expect(refusals.withLock { $0 } == 8 && server.connectionCount == SIPStreamTransport.maximumConnectionsPerAddress)
        try await waitUntil { flood.filter(\.isActive).count == SIPStreamTransport.maximumConnectionsPerAddress }
        #expect(flood.filter(\.isActive).count == SIPStreamTransport.maximumConnectionsPerAddress, "the surplus connections were closed")
        let other = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(to: try SocketAddress(ipAddress: "127.0.0.2", port: 0)).connect(host: "127.0.0.1", port: server.localPort).get()
        try await other.writeAndFlush(ByteBuffer(string: Self.options))
        try await heard.wait(for: "the other host's OPTIONS") { $0 == ["127.0.0.2"] }
        #expect(heard.withLock { $0 } == ["127.0.0.2"] && server.connectionCount == SIPStreamTransport.maximumConnectionsPerAddress + 1)
        for channel in flood + [other] { try? await channel.close() }
        await server.close()
    }

    /// A stream that loses its message boundary (here a negative Content-Length after one good
    /// message) is reported once, so the user agent can count it as malformed, and its connection
    /// is closed; the message before it was delivered, and a well-behaved connection is untouched.
    @Test func aStreamThatCannotBeFramedIsReportedAndItsConnectionClosed() async throws {
        let unframeable = Mutex<[String]>([])
        let heard = Locked(0)
        let server = try await SIPStreamTransport.listen(host: "127.0.0.1", port: 0, tls: nil,
                                                         unframeable: { from in unframeable.withLock { $0.append(from.ipAddress ?? "") } }) { _, _ in
            heard.withLock { $0 += 1 }
        }
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        let good = try await bootstrap.connect(host: "127.0.0.1", port: server.localPort).get()
        let bad = try await bootstrap.connect(host: "127.0.0.1", port: server.localPort).get()
        try await bad.writeAndFlush(ByteBuffer(string: Self.options + "INVITE sip:1@h SIP/2.0\r\nContent-Length: -5\r\n\r\n"))
        try await withTimeout(.seconds(5)) { try await bad.closeFuture.get() }
        #expect(!bad.isActive, "the connection that cannot be framed was closed")
        #expect(unframeable.withLock { $0 } == ["127.0.0.1"] && heard.withLock { $0 } == 1, "reported once, after its good message")
        try await good.writeAndFlush(ByteBuffer(string: Self.options))
        try await heard.wait(for: "the good connection's second message") { $0 == 2 }
        #expect(good.isActive && heard.withLock { $0 } == 2 && unframeable.withLock { $0.count } == 1)
        try? await good.close()
        await server.close()
    }
}
