import Foundation
import Logging
import NIOCore
import Synchronization
import Testing
import TestSupport
@testable import Bridge

/// A UDP peer that is gone (its port closed, so the kernel answers ICMP port unreachable) ends the
/// transaction or the un-ACKed call within T1 and a round trip, not at Timer B or H 32 s later.
/// Each test tells the two apart by what ended the call, not by a stopwatch: the suite runs beside
/// other tests, and a busy machine may take seconds to schedule what the kernel answered at once.
@Suite(.serialized) struct SIPUnreachablePeerTests {
    /// A UDP port that nothing listens on: bound, then closed.
    static func closedPort() async throws -> SocketAddress {
        let socket = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { _, _ in }
        let port = socket.localPort
        await socket.close()
        return try SocketAddress(ipAddress: "127.0.0.1", port: port)
    }

    /// A probe that runs out of time says "not refused", so a refusal is the kernel's answer; the
    /// long wait keeps a slow machine from turning that answer into a timeout.
    @Test func theProbeHearsAClosedPortAndNotAnOpenOne() async throws {
        let closed = try await Self.closedPort()
        #expect(await UDPPortProbe.isRefused(closed, wait: .seconds(60)), "nothing listens at \(closed)")

        let listener = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { _, _ in }
        let open = try SocketAddress(ipAddress: "127.0.0.1", port: listener.localPort)
        #expect(await UDPPortProbe.isRefused(open, wait: .milliseconds(300)) == false, "a listener is not refused")
        await listener.close()
    }

    /// A user agent that stops cancels its probes: one waiting on a silent listener gives up then,
    /// not at the end of its wait (a minute here; the default's 2 s held every stop up to then).
    @Test func aCancelledProbeGivesUpAtOnce() async throws {
        let listener = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { _, _ in }
        let open = try SocketAddress(ipAddress: "127.0.0.1", port: listener.localPort)
        let probe = Task { await UDPPortProbe.isRefused(open, wait: .seconds(60)) }
        probe.cancel()
        #expect(try await withTimeout(.seconds(30)) { await probe.value } == false)
        await listener.close()
    }

    /// Failing on the transport with the kernel's reason is the probe's doing: Timer B ends a
    /// transaction as a timeout.
    @Test func anInviteToAClosedPortFailsOnTheKernelsAnswer() async throws {
        let closed = try await Self.closedPort()
        let events = try await SIPOutboundCallTests.withUserAgent { ua in
            let call = try await ua.placeCall(from: "0701", to: "gone", gateway: SIPURI("sip:127.0.0.1:\(closed.port ?? 0)")!)
            return try await withTimeout(.seconds(30)) { await call.events.reduce(into: []) { $0.append($1) } }
        }
        guard case .failed(.transport(let why)) = events.last else {
            Issue.record("the INVITE failed on the transport: \(events)")
            return
        }
        #expect(why.contains("ICMP port unreachable"), "\(why)")
    }

    /// Timer H is set to an hour here, so a call that ends at all ended on the probe.
    @Test func anAnsweredCallWhoseCallerIsGoneEndsWithoutWaitingForTheACK() async throws {
        try await SIPInboundCallTests.withUserAgent(ackTimeout: .seconds(3600)) { ua, port in
            let replies = Locked<[String]>([])
            let peer = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { bytes, _ in
                replies.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
            }
            let invite = SIPTimersInVirtualTimeTests.invite(branch: "z9hG4bKgone", callID: "gone-1", port: peer.localPort)
            peer.send(invite, to: try SocketAddress(ipAddress: "127.0.0.1", port: port))
            try await replies.wait(for: "the 200 OK", timeout: .seconds(10)) { $0.contains { $0.hasPrefix("SIP/2.0 200") } }
            await peer.close()   // the caller is gone before its ACK
            // An un-ACKed call is never handed out (`incomingCalls` yields at the ACK), so its end
            // shows only in the agent's count.
            try await waitUntil(seconds: 60) { await ua.liveCallCount == 0 }
            #expect(await ua.liveCallCount == 0)
        }
    }
}
