import Foundation
import Pipeline
import Synchronization
import Testing
import TestLanes
import TestSupport
@testable import Bridge

/// A real softphone on both ends of a call: plain (UDP, RTP), and with SIP over TLS and SDES-SRTP
/// required on both sides (baresip's TLS transport and srtp module, `mediaenc=srtp-mand`).
@Suite(.serialized, .enabled(if: Baresip.isInstalled), .tags(.timed)) struct BaresipTests {
    enum Security: String, Sendable, CaseIterable, CustomTestStringConvertible {
        case plain, tlsWithSRTP
        var testDescription: String { rawValue }

        /// Our side's transport, TLS files and SRTP mode, and baresip's certificate and media encryption.
        func setUp() throws -> (transport: SIPTransportKind, tls: SIPStreamTransport.TLSFiles?, srtp: SRTPMode, phone: TLSCertificate?, mediaenc: String?) {
            guard self == .tlsWithSRTP else { return (.udp, nil, .off, nil, nil) }
            let certificate = try TLSCertificate.make()
            return (.tls, certificate.files(trusting: certificate), .required, certificate, "srtp-mand")
        }
    }

    @Test(arguments: Security.allCases)
    func baresipCallsInAndTheAudioWeDecodeIsTheFixture(security: Security) async throws {
        let setUp = try security.setUp()
        let fixture = try WAVFile.read(Fixtures.audio("en_yes_attend.wav")).samples
        let microphone = try await Baresip.padded(Fixtures.audio("en_yes_attend.wav"), before: 0.5, after: 1.5)
        // What the leg emitted, without frames of digital silence: the padding, and the silence the
        // leg fills in where baresip sent nothing for a tick (a busy machine stalls its sender; the
        // frames then come late and play on, so the speech is whole but shifted). The fixture's own
        // pauses are ±1 noise, never a frame of pure 0xFF.
        let heard = Mutex<[UInt8]>([])
        let silentFrames = Mutex(0)
        let scheduler = PacerScheduler<[UInt8]>()
        let (events, counters, log) = try await SIPInboundCallTests.withUserAgent(
            transport: setUp.transport, tls: setUp.tls, srtp: setUp.srtp
        ) { ua, port in
            let ticking = Task { await scheduler.run(clock: ContinuousClock()) }
            defer { ticking.cancel() }
            let phone = try Baresip(microphone: microphone, dial: "sip:0212345678@127.0.0.1:\(port)", seconds: 6,
                                    rtpPorts: TestPorts.rtp, tls: setUp.phone, mediaenc: setUp.mediaenc)
            // Bounded: if the call never comes (TLS or SRTP refused), the test fails instead of waiting forever.
            let arrived = try? await withTimeout(.seconds(15)) { await ua.incomingCalls.first { _ in true } }
            guard let call = arrived ?? nil, let rtp = call.media else { return ([MediaStreamEvent](), RTPSession.Counters(), phone.log) }
            #expect(rtp.isSRTP == (security == .tlsWithSRTP))
            let leg = try SIPCallLeg(call: call, scheduler: scheduler)
            let running = Task { await leg.run() }
            var events: [MediaStreamEvent] = []
            for await event in leg.events {
                guard case .media(let m) = event else { events.append(event); continue }
                if m.payload.allSatisfy({ $0 == 0xFF }) { silentFrames.withLock { $0 += 1 } } else { heard.withLock { $0 += m.payload } }
            }
            await running.value
            let counters = rtp.counters
            await phone.stop()
            return (events, counters, phone.log)
        }
        #expect(events.first.map { if case .start = $0 { true } else { false } } == true, "log: \(log.suffix(1500))")
        #expect(events.last == .stop)
        if security == .tlsWithSRTP {
            #expect(log.contains("SRTP is Enabled"), "baresip encrypted its media: \(log.suffix(1500))")
            #expect(counters.srtpRejected <= 2, "every packet verified (an RTCP packet may race the keys): \(counters)")
        }
        #expect(counters.packetsReceived > 150, "baresip's packets were taken: \(counters)")
        let decoded = G711.decode(heard.withLock { $0 }, law: .muLaw)
        let silent = silentFrames.withLock { $0 }
        #expect(decoded.count + 160 * silent > fixture.count + 8000, "the whole padded file arrived: \(decoded.count) samples and \(silent) silent frames")
        let correlation = bestCorrelation(fixture, decoded, maxLag: 2000)
        #expect(correlation.value > 0.9, "what we decoded correlates with the fixture: \(correlation), \(silent) silent frames, \(counters)")
    }

    @Test(arguments: Security.allCases)
    func baresipAnswersOurCallAndRecordsWhatWeSend(security: Security) async throws {
        let setUp = try security.setUp()
        let fixtureULaw = try WAVFile.read(Fixtures.audio("en_no_change.ulaw.wav")).data
        let fixture = G711.decode(fixtureULaw, law: .muLaw)
        let silence = try await Baresip.padded(Fixtures.audio("en_no_change.wav"), before: 0, after: 0)   // its own mic is irrelevant
        let phone = try Baresip(microphone: silence, answer: true, seconds: 10, rtpPorts: TestPorts.rtp,
                                tls: setUp.phone, mediaenc: setUp.mediaenc)
        try await Task.sleep(for: .milliseconds(700))
        let scheduler = PacerScheduler<[UInt8]>()
        let (ended, secure) = try await SIPOutboundCallTests.withUserAgent(
            transport: setUp.transport, tls: setUp.tls, srtp: setUp.srtp
        ) { ua in
            let ticking = Task { await scheduler.run(clock: ContinuousClock()) }
            defer { ticking.cancel() }
            // baresip listens for TLS one port above its UDP port.
            let port = phone.sipPort + (security == .plain ? 0 : 1)
            let call = try await ua.placeCall(from: "0701", to: "bare", gateway: SIPURI("sip:127.0.0.1:\(port)")!)
            var answered = false
            for await event in call.events {
                if event == .answered { answered = true; break }
                if case .failed = event { break }
            }
            guard answered, let rtp = call.media else { return (false, false) }
            let leg = try SIPCallLeg(call: call, scheduler: scheduler)
            let running = Task { await leg.run() }
            let marks = Task { for await e in leg.events { if case .mark = e { return true } }; return false }
            try await Task.sleep(for: .milliseconds(300))
            await leg.send(.media(fixtureULaw))
            await leg.send(.mark("done"))
            let played = await marks.value
            try await Task.sleep(for: .milliseconds(300))
            await leg.hangUp()
            await running.value
            return (played, rtp.isSRTP)
        }
        try await Task.sleep(for: .milliseconds(500))
        await phone.stop()
        #expect(ended, "the call was answered and our audio played out: \(phone.log.suffix(1500))")
        #expect(secure == (security == .tlsWithSRTP))
        if security == .tlsWithSRTP { #expect(phone.log.contains("SRTP is Enabled"), "\(phone.log.suffix(1500))") }
        let recording = try #require(phone.decodedRecording(), "baresip wrote what it heard: \(phone.log.suffix(1500))")
        let heard = try WAVFile.read(recording)
        #expect(heard.sampleRate == 8000)
        let correlation = bestCorrelation(fixture, heard.samples, maxLag: 8000)
        #expect(correlation.value > 0.9, "baresip heard our fixture: \(correlation)")
    }
}

extension TLSCertificate {
    /// This certificate as ours, trusting `authority` for peers.
    func files(trusting authority: TLSCertificate) -> SIPStreamTransport.TLSFiles {
        .init(certificateChain: certificate, privateKey: privateKey, trustedAuthorities: authority.certificate)
    }
}
