import Foundation
import Logging
import NIOCore
import Pipeline
import Synchronization
import Testing
import TestSupport
@testable import Bridge

/// The user agent's server-side timers on its injected clock, in virtual time: Timer G repeats an
/// unacknowledged 200 at T1, 2·T1, … up to T2; Timer H ends the dialog with a BYE at 64·T1 (the
/// default 32 s, not a shortened one); a retransmitted INVITE is answered with the same 200; an ACK
/// stops the repeats. Each message is stamped with the virtual instant the agent sent it, so the
/// checks are exact and 40 s of a call cost milliseconds.
@Suite struct SIPTimersInVirtualTimeTests {
    static func invite(branch: String, callID: String, port: Int) -> [UInt8] {
        let sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n"
        return Array(("INVITE sip:0212@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:\(port);branch=\(branch)\r\nFrom: <sip:a@127.0.0.1>;tag=t1\r\n"
            + "To: <sip:0212@127.0.0.1>\r\nCall-ID: \(callID)\r\nCSeq: 1 INVITE\r\nContact: <sip:a@127.0.0.1:\(port)>\r\nMax-Forwards: 70\r\n"
            + "Content-Type: application/sdp\r\nContent-Length: \(sdp.utf8.count)\r\n\r\n" + sdp).utf8)
    }

    /// Runs `body` in virtual time beside a user agent started on `wire`, with the caller's
    /// address: a real socket that stays silent, since the agent probes a caller that leaves its
    /// 200 unacknowledged (a closed port would end the call as unreachable).
    static func withUserAgent(_ wire: MemorySIPWire, executor: VirtualTimeExecutor,
                              _ body: @escaping @Sendable (SIPUserAgent, CallClock, SocketAddress) async throws -> Void) async throws {
        let caller = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { _, _ in }
        let callerAddress = try SocketAddress(ipAddress: "127.0.0.1", port: caller.localPort)
        try await executor.run {
            let clock = CallClock(virtualTime: executor)
            var configuration = SIPUserAgent.Configuration()
            configuration.rtpPorts = TestPorts.rtp
            let ua = try SIPUserAgent(configuration: configuration, logger: Logger(label: "test"), clock: clock)
            try await VirtualTimeExecutor.outside { _ = try await ua.start(transport: wire.attach) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await ua.run() }
                try await body(ua, clock, callerAddress)
                group.cancelAll()
            }
        }
        await caller.close()
    }

    /// `message` reaches the agent with time standing still until it has sent what `answered` waits
    /// for: what it does in reply happens at this virtual instant, however long the real work takes.
    static func deliver(_ message: [UInt8], from caller: SocketAddress, on wire: MemorySIPWire, answered: @escaping @Sendable ([MemorySIPWire.Sent]) -> Bool) async throws {
        try await VirtualTimeExecutor.outside {
            wire.deliver(message, from: caller)
            try await withTimeout(.seconds(10)) { await wire.wait(until: answered) }
        }
    }

    static func seconds(_ sent: [MemorySIPWire.Sent]) -> [Double] { sent.map(\.at.totalSeconds) }

    @Test func timerGRepeatsTheUnacknowledged200AndTimerHEndsTheDialogWithABye() async throws {
        let executor = VirtualTimeExecutor()
        let wire = MemorySIPWire(executor: executor)
        let handedOver = Locked(0)
        let sentBy40Seconds = Locked<[MemorySIPWire.Sent]>([])
        try await Self.withUserAgent(wire, executor: executor) { ua, clock, caller in
            let consumer = Task { [handedOver] in for await _ in ua.incomingCalls { handedOver.withLock { $0 += 1 } } }
            try await Self.deliver(Self.invite(branch: "z9hG4bKnoack", callID: "no-ack-1", port: caller.port ?? 0), from: caller, on: wire) { sent in
                sent.contains { $0.message.statusCode == 200 }
            }
            try await clock.sleep(for: .seconds(40))
            // Taken at once: what follows lets time run on (the BYE's next repeat is at 43.5 s).
            sentBy40Seconds.withLock { $0 = wire.sent }
            #expect(await ua.liveCallCount == 0, "Timer H ended the dialog")
            consumer.cancel()
            await consumer.value
        }
        let sent = sentBy40Seconds.value
        #expect(Self.seconds(sent.filter { $0.message.statusCode == 200 }) == [0, 0.5, 1.5, 3.5, 7.5, 11.5, 15.5, 19.5, 23.5, 27.5, 31.5],
                "Timer G: T1, doubling, capped at T2 = 4 s")
        #expect(Self.seconds(sent.filter { $0.message.method == "BYE" }) == [32, 32.5, 33.5, 35.5, 39.5],
                "Timer H at 64·T1, then the BYE's own Timer E")
        #expect(handedOver.value == 0, "a call nobody ACKed reached no consumer")
    }

    @Test func aRetransmittedInviteGetsTheSame200AndTheACKStopsTheRepeats() async throws {
        let executor = VirtualTimeExecutor()
        let wire = MemorySIPWire(executor: executor)
        let sentBy40Seconds = Locked<[MemorySIPWire.Sent]>([])
        try await Self.withUserAgent(wire, executor: executor) { ua, clock, caller in
            let invite = Self.invite(branch: "z9hG4bKdup1", callID: "dup-1", port: caller.port ?? 0)
            try await Self.deliver(invite, from: caller, on: wire) { sent in sent.contains { $0.message.statusCode == 200 } }
            try await clock.sleep(for: .milliseconds(200))
            // The network duplicated the INVITE: the same 200 again, no second call.
            try await Self.deliver(invite, from: caller, on: wire) { sent in sent.filter { $0.message.statusCode == 200 }.count == 2 }
            #expect(await ua.liveCallCount == 1, "the duplicate did not create a second call")
            try await clock.sleep(until: executor.epoch.advanced(by: .milliseconds(1800)))
            let tag = wire.sent.first { $0.message.statusCode == 200 }?.message.to?.tag ?? ""
            let ack = "ACK sip:0212@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:\(caller.port ?? 0);branch=z9hG4bKack1\r\nFrom: <sip:a@127.0.0.1>;tag=t1\r\n"
                + "To: <sip:0212@127.0.0.1>;tag=\(tag)\r\nCall-ID: dup-1\r\nCSeq: 1 ACK\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n"
            // The ACK confirms the dialog: the call is handed over, at 1.8 s.
            try await VirtualTimeExecutor.outside {
                wire.deliver(Array(ack.utf8), from: caller)
                _ = try await withTimeout(.seconds(10)) { await ua.incomingCalls.first { _ in true } }
            }
            try await clock.sleep(for: .seconds(40))
            sentBy40Seconds.withLock { $0 = wire.sent }
        }
        let oks = sentBy40Seconds.value.filter { $0.message.statusCode == 200 }
        #expect(Self.seconds(oks) == [0, 0.2, 0.5, 1.5], "200 sent, re-sent for the duplicate and by Timer G, none after the ACK")
        #expect(Set(oks.compactMap { $0.message.to?.tag }).count == 1, "one dialog, one To tag")
        #expect(!sentBy40Seconds.value.contains { $0.message.method == "BYE" }, "an acknowledged call is not ended by Timer H")
    }
}
