import Foundation
import Logging
import NIOCore
import Pipeline
import Synchronization
import Testing
import TestLanes
import TestSupport
@testable import Bridge

/// Timers A, B, E and F against the instants the test hands the transaction: no clock is read, so
/// it runs in the shared pass. (G and H, the server's: SIPTimersInVirtualTimeTests.)
@Suite struct ClientTransactionTimerTests {
    static func retransmitTimes(_ kind: ClientTransaction.Kind, provisionalAt: Duration? = nil) -> (retransmits: [Double], timeout: Double?) {
        let start = ContinuousClock.now
        var tx = ClientTransaction(kind: kind, callID: "c", method: kind == .invite ? "INVITE" : "BYE", request: [],
                                   destination: SIPDestination(address: try! SocketAddress(ipAddress: "127.0.0.1", port: 5060)), now: start)
        var times: [Double] = []
        var step = Duration.zero
        while step <= .seconds(40) {
            let now = start.advanced(by: step)
            if let p = provisionalAt, step == p { tx.provisional(now: now) }
            switch tx.fire(now: now) {
            case .retransmit: times.append(step.totalSeconds)
            case .timeout: return (times, step.totalSeconds)
            default: break
            }
            step += .milliseconds(10)
        }
        return (times, nil)
    }

    @Test func timerAStartsAtT1AndDoublesUntilTimerBAt32Seconds() {
        let (times, timeout) = Self.retransmitTimes(.invite)
        #expect(times == [0.5, 1.5, 3.5, 7.5, 15.5, 31.5])
        #expect(timeout == 32)
    }

    /// A callee that rings past 32 s is not a timeout (`outbound.ring_timeout` may be up to 600 s):
    /// after a provisional response only the call's ring timeout (CANCEL) ends the INVITE.
    @Test func aProvisionalResponseStopsInviteRetransmissionAndTimerB() {
        let (times, timeout) = Self.retransmitTimes(.invite, provisionalAt: .milliseconds(700))
        #expect(times == [0.5])
        #expect(timeout == nil, "Timer B fired at \(timeout ?? 0) s while the callee rang")
    }

    @Test func anAbandonedProceedingInviteEndsAfterAnother64T1() {
        let start = ContinuousClock.now
        var tx = ClientTransaction(kind: .invite, callID: "c", method: "INVITE", request: [],
                                   destination: SIPDestination(address: try! SocketAddress(ipAddress: "127.0.0.1", port: 5060)), now: start)
        tx.provisional(now: start.advanced(by: .seconds(1)))
        #expect(tx.fire(now: start.advanced(by: .seconds(100))) == .none, "ringing: no Timer B")
        tx.abandon(now: start.advanced(by: .seconds(100)))
        #expect(tx.fire(now: start.advanced(by: .seconds(131))) == .none)
        #expect(tx.fire(now: start.advanced(by: .seconds(132))) == .timeout)
    }

    @Test func timerEDoublesUpToT2AndTimerFEndsIt() {
        let (times, timeout) = Self.retransmitTimes(.nonInvite)
        #expect(Array(times.prefix(5)) == [0.5, 1.5, 3.5, 7.5, 11.5], "capped at T2 = 4 s")
        #expect(timeout == 32)
    }
}

@Suite(.serialized, .enabled(if: Sipp.isInstalled), .tags(.timed)) struct RTPInactivityTests {
    /// sipp answers but never sends RTP: after the media timeout we hang up with that reason.
    @Test func silenceOnTheWireEndsTheCallWithMediaTimeout() async throws {
        let sipPort = freeSippPort()
        let sipp = try Sipp(arguments: ["-sn", "uas", "-i", "127.0.0.1", "-p", "\(sipPort)", "-mp", "\(freeSippMediaPort())"])
        try await sipp.listening(on: sipPort)
        var configuration = SIPUserAgent.Configuration()
        configuration.port = 0
        configuration.rtpPorts = TestPorts.rtp
        configuration.mediaTimeoutSeconds = 1.5
        let ua = try SIPUserAgent(configuration: configuration, logger: Logger(label: "test"))
        try await ua.start()
        let runner = Task { await ua.run() }
        let scheduler = PacerScheduler<[UInt8]>()
        let ticking = Task { await scheduler.run(clock: ContinuousClock()) }
        let call = try await ua.placeCall(from: "0701", to: "0109", gateway: SIPURI("sip:127.0.0.1:\(sipPort)")!)
        var answered = false
        for await event in call.events where event == .answered {
            answered = true
            break
        }
        // The leg reads the call's events from here on (a second reader would take some of them:
        // this test once lost the `.ended` that way); it returns when the call has ended.
        if answered { await (try SIPCallLeg(call: call, scheduler: scheduler)).run() }
        ticking.cancel()
        runner.cancel()
        await runner.value
        let result = await sipp.wait()
        #expect(answered && call.ending == .ended(.mediaTimeout), "\(String(describing: call.ending))")
        #expect(result.status == 0, "sipp got our BYE: \(result.output.suffix(1000))")
        #expect(ua.portPool.inUseCount == 0)
    }
}

/// A raw UDP far end checks what our INVITE carries and answers 183 with SDP (early media) first.
@Suite(.serialized) struct OutboundInviteContentTests {
    @Test func inviteCarriesCallerDisplayNameAndOutboundIDAndEarlyMediaIsAccepted() async throws {
        let received = Locked<[(SIPMessage, SocketAddress)]>([])
        let peer = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { bytes, from in
            if let m = try? SIPParser.parse(bytes) { received.withLock { $0.append((m, from)) } }
        }
        let events = try await SIPOutboundCallTests.withUserAgent { ua in
            let call = try await ua.placeCall(from: "07012345678", displayName: "ABC Company", to: "01098765432",
                                              gateway: SIPURI("sip:127.0.0.1:\(peer.localPort)")!, outboundCallID: "ob-1a2b3c4d")
            try await received.wait(for: "the INVITE") { $0.contains { $0.0.method == "INVITE" } }
            let (request, from) = try #require(received.value.first { $0.0.method == "INVITE" })
            #expect(request.from?.displayName == "ABC Company" && request.from?.uri.user == "07012345678" && request.from?.tag != nil)
            #expect(request.to?.uri.user == "01098765432")
            #expect(request.headers["X-Outbound-Call-ID"] == "ob-1a2b3c4d")
            let offer = try SessionDescription(parsing: request.body)
            #expect(offer.media.first?.formats == [0, 8, 101])
            func reply(_ code: Int, body: [UInt8] = []) -> [UInt8] {
                var h = SIPHeaders()
                for v in request.headers.values("Via") { h.add("Via", v) }
                h.add("From", request.headers["From"]!); h.add("To", request.headers["To"]! + ";tag=peer1"); h.add("Call-ID", request.callID!)
                h.add("CSeq", request.headers["CSeq"]!); h.add("Contact", "<sip:peer@127.0.0.1:\(peer.localPort)>")
                if !body.isEmpty { h.add("Content-Type", "application/sdp") }
                return SIPMessage.response(code, headers: h, body: body).serialized()
            }
            let answer = Array("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4010 RTP/AVP 8 101\r\na=rtpmap:8 PCMA/8000\r\na=rtpmap:101 telephone-event/8000\r\n".utf8)
            peer.send(reply(183, body: answer), to: from)
            try await Task.sleep(for: .milliseconds(100))
            peer.send(reply(200, body: answer), to: from)
            var seen: [SIPCallEvent] = []
            for await event in call.events {
                seen.append(event)
                if event == .answered { break }
            }
            #expect(call.media?.law == .aLaw, "the answer's PCMA is used")
            await call.hangUp()
            for await event in call.events { seen.append(event) }
            try await Task.sleep(for: .milliseconds(200))
            return seen
        }
        #expect(events.contains(.ringing(earlyMedia: true)), "183 with SDP is early media: \(events)")
        #expect(events.contains(.answered) && events.last == .ended(.localHangup))
        let methods = received.withLock { $0.map { $0.0.method ?? "\($0.0.statusCode ?? 0)" } }
        #expect(methods.contains("ACK") && methods.contains("BYE"), "\(methods)")
        let ack = received.withLock { $0.first { $0.0.method == "ACK" }?.0 }
        #expect(ack?.requestURI == "sip:peer@127.0.0.1:\(peer.localPort)", "the 2xx ACK goes to the remote Contact")
        await peer.close()
    }
}

/// RTCP on the session's clock, in virtual time: each report's instant is exact, so the interval
/// is checked against RFC 3550's own bounds (5 s × 0.5–1.5, on the 20 ms tick grid), and 30 s of
/// ticks cost milliseconds. The reports still travel a real socket, where their content is read.
@Suite struct RTCPReportTests {
    @Test func rtcpReportsAreSentAboutEveryFiveSeconds() async throws {
        let pool = try RTPPortPool(range: TestPorts.rtp)
        let (arrivals, arrived) = AsyncStream.makeStream(of: RTCPPacket.Parsed.self)
        let remoteRTP = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { _, _ in }
        let remoteRTCP = try await UDPSocket.bind(host: "127.0.0.1", port: remoteRTP.localPort + 1) { bytes, _ in
            if let report = RTCPPacket.parse(bytes) { arrived.yield(report) }
        }
        let executor = VirtualTimeExecutor()
        // 30 s of 20 ms ticks, sending audio so that the reports are sender reports; the instant of
        // each tick that sent one.
        let sentAt = try await executor.run { () -> [Duration] in
            let clock = CallClock(virtualTime: executor)
            let session = try await RTPSession.open(host: "127.0.0.1", pool: pool, cname: "voicebridge@test", clock: clock)
            try session.setRemote(host: "127.0.0.1", port: remoteRTP.localPort)
            var sentAt: [Duration] = []
            for n in 0..<1500 {
                session.send(frame: [UInt8](repeating: 0xFF, count: 160))
                session.tick()
                if session.counters.rtcpSent > sentAt.count { sentAt.append(executor.elapsed) }
                try await clock.sleep(until: executor.epoch.advanced(by: .milliseconds(20 * (n + 1))))
            }
            await session.close()
            return sentAt
        }
        let reports = try await withTimeout(.seconds(10)) {
            var reports: [RTCPPacket.Parsed] = []
            for await report in arrivals {
                reports.append(report)
                if reports.count == sentAt.count { break }
            }
            return reports
        }
        await remoteRTP.close()
        await remoteRTCP.close()
        #expect(sentAt.first == .milliseconds(2500), "the first report at 2.5 s: \(sentAt)")
        #expect(sentAt.count >= 4 && sentAt.count <= 12, "\(sentAt.count) reports in 30 s")
        for (a, b) in zip(sentAt, sentAt.dropFirst()) {
            #expect(b - a >= .milliseconds(2500) && b - a <= .milliseconds(7520), "interval \(b - a)")
        }
        #expect(reports.count == sentAt.count && reports.allSatisfy { $0.sender != nil && $0.cname == "voicebridge@test" })
        #expect(pool.inUseCount == 0)
    }
}
