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
/// it runs in the shared pass.
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

/// A raw UDP peer drives our UAS where sipp's scripts cannot reach: retransmissions.
@Suite(.serialized, .tags(.timed)) struct SIPServerTransactionTests {
    static func invite(branch: String, callID: String, port: Int) -> [UInt8] {
        let sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n"
        return Array(("INVITE sip:0212@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:\(port);branch=\(branch)\r\nFrom: <sip:a@127.0.0.1>;tag=t1\r\n"
            + "To: <sip:0212@127.0.0.1>\r\nCall-ID: \(callID)\r\nCSeq: 1 INVITE\r\nContact: <sip:a@127.0.0.1:\(port)>\r\nMax-Forwards: 70\r\n"
            + "Content-Type: application/sdp\r\nContent-Length: \(sdp.utf8.count)\r\n\r\n" + sdp).utf8)
    }

    @Test func aRetransmittedInviteIsAbsorbedAnd200IsRepeatedUntilACK() async throws {
        try await SIPInboundCallTests.withUserAgent { ua, port in
            let received = Mutex<[(Double, SIPMessage)]>([])
            let start = ContinuousClock.now
            let peer = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { bytes, _ in
                if let m = try? SIPParser.parse(bytes) { received.withLock { $0.append(((ContinuousClock.now - start).totalSeconds, m)) } }
            }
            let target = try SocketAddress(ipAddress: "127.0.0.1", port: port)
            let invite = Self.invite(branch: "z9hG4bKdup1", callID: "dup-1", port: peer.localPort)
            peer.send(invite, to: target)
            try await Task.sleep(for: .milliseconds(200))
            peer.send(invite, to: target)                        // the network duplicated it
            try await Task.sleep(for: .milliseconds(1800))        // no ACK yet: Timer G repeats the 200
            let oks = received.withLock { $0 }.filter { $0.1.statusCode == 200 }
            #expect(oks.count >= 3, "200 sent, re-sent for the duplicate, and by Timer G: \(oks.map(\.0))")
            #expect(Set(oks.compactMap { $0.1.to?.tag }).count == 1, "one dialog, one To tag")
            #expect(await ua.liveCallCount == 1, "the duplicate did not create a second call")
            // ACK stops the retransmissions.
            let tag = oks[0].1.to?.tag ?? ""
            let ack = "ACK sip:0212@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:\(peer.localPort);branch=z9hG4bKack1\r\nFrom: <sip:a@127.0.0.1>;tag=t1\r\n"
                + "To: <sip:0212@127.0.0.1>;tag=\(tag)\r\nCall-ID: dup-1\r\nCSeq: 1 ACK\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n"
            peer.send(Array(ack.utf8), to: target)
            try await Task.sleep(for: .milliseconds(100))
            let afterACK = received.withLock { $0 }.filter { $0.1.statusCode == 200 }.count
            try await Task.sleep(for: .milliseconds(2500))
            #expect(received.withLock { $0 }.filter { $0.1.statusCode == 200 }.count == afterACK, "no 200 after the ACK")
            await peer.close()
        }
    }
}

@Suite(.serialized, .enabled(if: Sipp.isInstalled), .tags(.timed)) struct RTPInactivityTests {
    /// sipp answers but never sends RTP: after the media timeout we hang up with that reason.
    @Test func silenceOnTheWireEndsTheCallWithMediaTimeout() async throws {
        let sipPort = freeUDPPort()
        let sipp = try Sipp(arguments: ["-sn", "uas", "-i", "127.0.0.1", "-p", "\(sipPort)", "-mp", "\(freeSippMediaPort())"])
        try await Task.sleep(for: .milliseconds(300))
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
        let received = Mutex<[(SIPMessage, SocketAddress)]>([])
        let peer = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { bytes, from in
            if let m = try? SIPParser.parse(bytes) { received.withLock { $0.append((m, from)) } }
        }
        let events = try await SIPOutboundCallTests.withUserAgent { ua in
            let call = try await ua.placeCall(from: "07012345678", displayName: "ABC Company", to: "01098765432",
                                              gateway: SIPURI("sip:127.0.0.1:\(peer.localPort)")!, outboundCallID: "ob-1a2b3c4d")
            var invite: (SIPMessage, SocketAddress)?
            while invite == nil { try await Task.sleep(for: .milliseconds(10)); invite = received.withLock { $0.first { $0.0.method == "INVITE" } } }
            let (request, from) = invite!
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

@Suite(.serialized, .tags(.timed)) struct TimerHAndRTCPTests {
    /// Timer H: a caller that never ACKs our 200 gets it repeated, then a BYE, and the call ends.
    @Test func withoutAnACKTheCallEndsWithBye() async throws {
        var configuration = SIPUserAgent.Configuration()
        configuration.port = 0
        configuration.rtpPorts = TestPorts.rtp
        configuration.ackTimeout = .seconds(2)
        let ua = try SIPUserAgent(configuration: configuration, logger: Logger(label: "test"))
        let port = try await ua.start()
        let runner = Task { await ua.run() }
        let received = Mutex<[SIPMessage]>([])
        let peer = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { bytes, _ in
            if let m = try? SIPParser.parse(bytes) { received.withLock { $0.append(m) } }
        }
        let handedOver = Mutex(0)
        let consumer = Task { for await _ in ua.incomingCalls { handedOver.withLock { $0 += 1 } } }
        peer.send(SIPServerTransactionTests.invite(branch: "z9hG4bKnoack", callID: "no-ack-1", port: peer.localPort), to: try SocketAddress(ipAddress: "127.0.0.1", port: port))
        // Never ACKed, the call is never handed over: Timer H ends it with a BYE.
        try await waitUntil(seconds: 10) { received.withLock { $0 }.contains { $0.method == "BYE" } }
        runner.cancel()
        await runner.value
        await peer.close()
        consumer.cancel()
        await consumer.value
        #expect(handedOver.withLock { $0 } == 0, "a call nobody ACKed reached no consumer")
        let messages = received.withLock { $0 }
        #expect(messages.filter { $0.statusCode == 200 }.count >= 2, "Timer G repeated the 200")
        #expect(messages.contains { $0.method == "BYE" }, "Timer H ended the call with BYE")
        #expect(ua.portPool.inUseCount == 0)
    }

    /// RTCP: a compound SR/RR with the CNAME goes to port+1 about every 5 s (2.5–7.5 s apart).
    @Test func rtcpReportsAreSentAboutEveryFiveSeconds() async throws {
        let pool = try RTPPortPool(range: 42900...42999)
        let arrivals = Mutex<[(ContinuousClock.Instant, RTCPPacket.Parsed)]>([])
        let remoteRTP = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { _, _ in }
        let remoteRTCP = try await UDPSocket.bind(host: "127.0.0.1", port: remoteRTP.localPort + 1) { bytes, _ in
            if let report = RTCPPacket.parse(bytes) { arrivals.withLock { $0.append((.now, report)) } }
        }
        let session = try await RTPSession.open(host: "127.0.0.1", pool: pool, cname: "voicebridge@test")
        try session.setRemote(host: "127.0.0.1", port: remoteRTP.localPort)
        let start = ContinuousClock.now
        // 11 s of 20 ms ticks (the first report is due at 2.5 s, the next 2.5–7.5 s later, so by
        // 10 s there are always two), sending audio so the reports are sender reports.
        for n in 0..<550 {
            session.send(frame: [UInt8](repeating: 0xFF, count: 160))
            session.tick()
            try await Task.sleep(until: start.advanced(by: .milliseconds(20 * (n + 1))), clock: .continuous)
        }
        await session.close()
        await remoteRTP.close()
        await remoteRTCP.close()
        let reports = arrivals.withLock { $0 }
        #expect(reports.count >= 2 && reports.count <= 4, "\(reports.count) reports in 11 s")
        #expect(reports.allSatisfy { $0.1.sender != nil && $0.1.cname == "voicebridge@test" })
        for (a, b) in zip(reports, reports.dropFirst()) {
            let gap = a.0.duration(to: b.0)
            #expect(gap >= .milliseconds(2400) && gap <= .milliseconds(7600), "interval \(gap)")
        }
        #expect(pool.inUseCount == 0)
    }
}
