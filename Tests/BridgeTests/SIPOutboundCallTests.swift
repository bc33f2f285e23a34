import Foundation
import Logging
import Synchronization
import Testing
import TestSupport
@testable import Bridge

/// Our UAC against sipp as the far end, on 127.0.0.1.
@Suite(.serialized, .enabled(if: Sipp.isInstalled)) struct SIPOutboundCallTests {
    /// A user agent on a free port with its own RTP range, running for the body's duration.
    static func withUserAgent<T: Sendable>(username: String? = nil, password: String? = nil, credentialsHost: String? = nil, ringTimeout: Duration = .seconds(30),
                                           transport: SIPTransportKind = .udp, tls: SIPStreamTransport.TLSFiles? = nil, srtp: SRTPMode = .off,
                                           _ body: @Sendable (SIPUserAgent) async throws -> T) async throws -> T {
        var configuration = SIPUserAgent.Configuration()
        configuration.port = 0
        configuration.transport = transport
        configuration.tls = tls
        configuration.srtp = srtp
        configuration.rtpPorts = TestPorts.rtp
        configuration.username = username
        configuration.password = password
        configuration.credentialsHost = credentialsHost
        configuration.ringTimeout = ringTimeout
        let ua = try SIPUserAgent(configuration: configuration, logger: Logger(label: "test-sip"))
        try await ua.start()
        let runner = Task { await ua.run() }
        defer { runner.cancel() }
        let result = try await body(ua)
        runner.cancel()
        await runner.value
        #expect(ua.portPool.inUseCount == 0, "every RTP port went back to the pool")
        return result
    }

    static func collect(_ call: SIPCall, until stop: @Sendable (SIPCallEvent) -> Bool) async -> [SIPCallEvent] {
        var seen: [SIPCallEvent] = []
        for await event in call.events {
            seen.append(event)
            if stop(event) { break }
        }
        return seen
    }

    @Test func answeredCallEchoesAtLeast95PercentOfFramesThenWeHangUp() async throws {
        let sipPort = freeSippPort(), mediaPort = freeSippMediaPort()
        let sipp = try Sipp(arguments: ["-sn", "uas", "-i", "127.0.0.1", "-p", "\(sipPort)", "-mp", "\(mediaPort)", "-rtp_echo"])
        try await sipp.listening(on: sipPort)
        let received = Mutex<[[UInt8]]>([])
        let (events, counters) = try await Self.withUserAgent { ua in
            let call = try await ua.placeCall(from: "07012345678", displayName: "ABC Company", to: "01098765432",
                                              gateway: SIPURI("sip:127.0.0.1:\(sipPort)")!, outboundCallID: "ob-1234abcd")
            var events = await Self.collect(call) { $0 == .answered || { if case .failed = $0 { true } else { false } }($0) }
            guard events.last == .answered, let rtp = call.media else { return (events, RTPSession.Counters()) }
            rtp.setHandlers(media: { payload in received.withLock { $0.append(payload) } }, dtmf: { _ in })
            let clock = ContinuousClock()
            let start = clock.now
            for n in 0..<100 {
                rtp.send(frame: [UInt8](repeating: UInt8(truncatingIfNeeded: n), count: 160))
                rtp.tick()
                try await clock.sleep(until: start.advanced(by: .milliseconds(20 * (n + 1))), tolerance: nil)
            }
            for _ in 0..<15 { rtp.tick(); try await Task.sleep(for: .milliseconds(20)) }   // let the echo drain
            let counters = rtp.counters
            await call.hangUp()
            events += await Self.collect(call) { _ in false }
            return (events, counters)
        }
        let result = await sipp.wait()
        #expect(events.contains(.answered))
        #expect(events.last == .ended(.localHangup))
        #expect(counters.packetsSent == 100)
        let echoed = received.withLock { $0 }
        #expect(echoed.count >= 95, "\(echoed.count) of 100 frames came back")
        #expect(Set(echoed.map { $0[0] }).count >= 95, "the frames that came back are ours, not repeats")
        #expect(result.status == 0, "sipp: \(result.output.suffix(2000))")
    }

    @Test(arguments: [("486 Busy Here", SIPCallFailure.busy), ("603 Decline", .rejected), ("480 Temporarily Unavailable", .noAnswer),
                      ("404 Not Found", .failed(404)), ("302 Moved Temporarily", .redirected(302, nil))])
    func finalResponsesMapToOutcomes(status: String, expected: SIPCallFailure) async throws {
        let sipPort = freeSippPort()
        let sipp = try Sipp(scenario: SippScenario.reject(status), arguments: ["-i", "127.0.0.1", "-p", "\(sipPort)"])
        try await sipp.listening(on: sipPort)
        let events = try await Self.withUserAgent { ua in
            let call = try await ua.placeCall(from: "0701", to: "0109", gateway: SIPURI("sip:127.0.0.1:\(sipPort)")!)
            return await Self.collect(call) { _ in false }
        }
        let result = await sipp.wait()
        #expect(events.last == .failed(expected))
        #expect(result.status == 0, "sipp saw our ACK: \(result.output.suffix(1500))")
    }

    @Test func ringTimeoutSendsCancelAndEndsAsNoAnswer() async throws {
        let sipPort = freeSippPort()
        let sipp = try Sipp(scenario: SippScenario.ringForever, arguments: ["-i", "127.0.0.1", "-p", "\(sipPort)"])
        try await sipp.listening(on: sipPort)
        let clock = ContinuousClock()
        let start = clock.now
        let events = try await Self.withUserAgent(ringTimeout: .seconds(2)) { ua in
            let call = try await ua.placeCall(from: "0701", to: "0109", gateway: SIPURI("sip:127.0.0.1:\(sipPort)")!)
            return await Self.collect(call) { _ in false }
        }
        let elapsed = start.duration(to: clock.now)
        let result = await sipp.wait()
        #expect(events == [.trying, .ringing(earlyMedia: false), .failed(.noAnswer)])
        #expect(elapsed >= .seconds(2) && elapsed < .seconds(6), "ended \(elapsed) after dialing")
        #expect(result.status == 0, "sipp got CANCEL and the ACK for 487: \(result.output.suffix(1500))")
    }

    @Test func operatorCancelWhileRingingEndsAsCancelled() async throws {
        let sipPort = freeSippPort()
        let sipp = try Sipp(scenario: SippScenario.ringForever, arguments: ["-i", "127.0.0.1", "-p", "\(sipPort)"])
        try await sipp.listening(on: sipPort)
        let events = try await Self.withUserAgent { ua in
            let call = try await ua.placeCall(from: "0701", to: "0109", gateway: SIPURI("sip:127.0.0.1:\(sipPort)")!)
            var events = await Self.collect(call) { if case .ringing = $0 { true } else { false } }
            await call.cancel()
            events += await Self.collect(call) { _ in false }
            return events
        }
        let result = await sipp.wait()
        #expect(events.last == .failed(.cancelled))
        #expect(result.status == 0, "\(result.output.suffix(1500))")
    }

    @Test(arguments: [false, true])
    func digestChallengeIsAnsweredOnceWithTheConfiguredCredentials(proxy: Bool) async throws {
        let sipPort = freeSippPort(), mediaPort = freeSippMediaPort()
        let sipp = try Sipp(scenario: SippScenario.digestAuth(proxy: proxy, username: "alice", password: "s3cret"),
                            arguments: ["-i", "127.0.0.1", "-p", "\(sipPort)", "-mp", "\(mediaPort)"])
        try await sipp.listening(on: sipPort)
        let events = try await Self.withUserAgent(username: "alice", password: "s3cret") { ua in
            let call = try await ua.placeCall(from: "0701", to: "0109", gateway: SIPURI("sip:127.0.0.1:\(sipPort)")!)
            var events = await Self.collect(call) { $0 == .answered || { if case .failed = $0 { true } else { false } }($0) }
            if events.last == .answered {
                await call.hangUp()
                events += await Self.collect(call) { _ in false }
            }
            return events
        }
        let result = await sipp.wait()
        #expect(events.contains(.answered), "events: \(events)")
        #expect(events.last == .ended(.localHangup))
        #expect(result.status == 0, "sipp verified our digest response: \(result.output.suffix(1500))")
    }

    @Test func wrongCredentialsFailWithoutLooping() async throws {
        let sipPort = freeSippPort()
        let sipp = try Sipp(scenario: SippScenario.digestAuth(proxy: false, username: "alice", password: "s3cret"), arguments: ["-i", "127.0.0.1", "-p", "\(sipPort)"])
        try await sipp.listening(on: sipPort)
        let events = try await Self.withUserAgent(username: "alice", password: "wrong") { ua in
            let call = try await ua.placeCall(from: "0701", to: "0109", gateway: SIPURI("sip:127.0.0.1:\(sipPort)")!)
            return await Self.collect(call) { _ in false }
        }
        _ = await sipp.wait()
        #expect(events.last == .failed(.failed(403)))
    }

    /// Issue 36: a transfer target that challenges (any host but the gateway) gets no digest of the
    /// trunk's credentials; the call fails saying so, and no second INVITE is sent.
    @Test func credentialsAreNotSentToAHostOtherThanTheGateway() async throws {
        let sipPort = freeSippPort()
        // sipp waits for the second INVITE that never comes: a short life.
        let sipp = try Sipp(scenario: SippScenario.digestAuth(proxy: false, username: "alice", password: "s3cret"), arguments: ["-i", "127.0.0.1", "-p", "\(sipPort)"],
                            seconds: 8)
        try await sipp.listening(on: sipPort)
        let events = try await Self.withUserAgent(username: "alice", password: "s3cret", credentialsHost: "gateway.example") { ua in
            let call = try await ua.placeCall(from: "0701", to: "0109", gateway: SIPURI("sip:127.0.0.1:\(sipPort)")!)
            return await Self.collect(call) { _ in false }
        }
        _ = await sipp.wait()
        // With the credentials sent, sipp would have verified them and answered.
        #expect(events.last == .failed(.credentialsWithheld(401)) && !events.contains(.answered), "events: \(events)")
    }
}
