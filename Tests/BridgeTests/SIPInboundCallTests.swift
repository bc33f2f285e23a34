import Foundation
import Logging
import NIOCore
import Synchronization
import Testing
import TestSupport
@testable import Bridge

/// sipp calls our UAS (AI answer mode) on 127.0.0.1.
@Suite(.serialized, .enabled(if: Sipp.isInstalled)) struct SIPInboundCallTests {
    static func withUserAgent<T: Sendable>(maxInbound: Int = 20, admission: SIPUserAgent.Admission = .accept, ackTimeout: Duration? = nil,
                                           transport: SIPTransportKind = .udp, tls: SIPStreamTransport.TLSFiles? = nil, srtp: SRTPMode = .off,
                                           _ body: @Sendable (SIPUserAgent, Int) async throws -> T) async throws -> T {
        var configuration = SIPUserAgent.Configuration()
        configuration.port = 0
        configuration.transport = transport
        configuration.tls = tls
        configuration.srtp = srtp
        configuration.rtpPorts = TestPorts.rtp
        configuration.maxInboundCalls = maxInbound
        if let ackTimeout { configuration.ackTimeout = ackTimeout }
        let ua = try SIPUserAgent(configuration: configuration, logger: Logger(label: "test-sip"))
        let port = try await ua.start()
        await ua.setAdmission { _ in admission }
        let runner = Task { await ua.run() }
        let result = try await body(ua, port)
        runner.cancel()
        await runner.value
        #expect(ua.portPool.inUseCount == 0)
        return result
    }

    /// Over UDP, and over TCP (sipp's `-t t1`: one connection, framed by Content-Length).
    @Test(arguments: [SIPTransportKind.udp, .tcp])
    func aCallerIsAnsweredAndHangsUp(transport: SIPTransportKind) async throws {
        let events = try await Self.withUserAgent(transport: transport) { ua, port in
            let sipp = try Sipp(arguments: ["-sn", "uac", "127.0.0.1:\(port)", "-t", transport == .udp ? "u1" : "t1", "-s", "0212345678", "-i", "127.0.0.1",
                                            "-mp", "\(freeSippMediaPort())", "-d", "1000"])
            var iterator = ua.incomingCalls.makeAsyncIterator()
            guard let call = await iterator.next() else { return [SIPCallEvent]() }
            #expect(call.direction == .inbound && call.localNumber == "0212345678")
            #expect(call.media != nil)
            var events: [SIPCallEvent] = []
            for await event in call.events { events.append(event) }
            let result = await sipp.wait()
            #expect(result.status == 0, "sipp: \(result.output.suffix(1500))")
            return events
        }
        #expect(events == [.answered, .ended(.remoteHangup)])
    }

    @Test(arguments: [(486, 0, SIPUserAgent.Admission.accept, "0 8 101"), (503, 5, .unavailable, "0 8 101"), (488, 5, .accept, "18")])
    func refusalsCarryTheRightStatus(status: Int, limit: Int, admission: SIPUserAgent.Admission, formats: String) async throws {
        try await Self.withUserAgent(maxInbound: limit, admission: admission) { ua, port in
            let sipp = try Sipp(scenario: SippCaller.invite(expecting: status, sdpFormats: formats),
                                arguments: ["127.0.0.1:\(port)", "-s", "0212345678", "-i", "127.0.0.1"])
            let result = await sipp.wait()
            #expect(result.status == 0, "expected \(status): \(result.output.suffix(1500))")
            #expect(await ua.liveCallCount == 0)
        }
    }

    @Test func optionsIsAnsweredAndGarbageIsSurvived() async throws {
        try await Self.withUserAgent { ua, port in
            // Hostile datagrams first: the agent must still answer afterwards.
            let probe = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { _, _ in }
            let target = try SocketAddress(ipAddress: "127.0.0.1", port: port)
            for garbage in [[UInt8](repeating: 0, count: 100), Array("INVITE nonsense\r\n\r\n".utf8), [UInt8](repeating: 0x41, count: 65_000),
                            Array("OPTIONS sip:x@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1;branch=z9hG4bK1\r\n\r\n".utf8)] {
                probe.send(garbage, to: target)
            }
            await probe.close()
            try await waitUntil { await ua.malformedDatagrams == 4 }
            #expect(await ua.malformedDatagrams == 4)
            let sipp = try Sipp(scenario: SippCaller.options, arguments: ["127.0.0.1:\(port)", "-s", "x", "-i", "127.0.0.1"])
            let result = await sipp.wait()
            #expect(result.status == 0, "\(result.output.suffix(1500))")
        }
    }
}
