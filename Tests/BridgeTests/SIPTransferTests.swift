import Foundation
import Logging
import Testing
import TestSupport
@testable import Bridge

/// Blind transfer (RFC 3515) from our side of a call: baresip is the transferee (it takes the
/// REFER, INVITEs the target and reports in NOTIFYs), sipp is the person it is transferred to.
@Suite(.serialized, .enabled(if: Baresip.isInstalled && Sipp.isInstalled)) struct SIPTransferTests {
    /// Our call to baresip, answered; then `body` with the call.
    static func withAnsweredCall<T: Sendable>(_ body: @Sendable (SIPCall) async throws -> T) async throws -> T {
        let silence = try await Baresip.padded(Fixtures.audio("en_no_change.wav"), before: 0, after: 8)
        let phone = try Baresip(microphone: silence, answer: true, seconds: 20, rtpPorts: TestPorts.rtp)
        defer { Task { await phone.stop() } }
        try await Task.sleep(for: .milliseconds(700))
        return try await SIPOutboundCallTests.withUserAgent { ua in
            let call = try await ua.placeCall(from: "0701", to: "bare", gateway: SIPURI("sip:127.0.0.1:\(phone.sipPort)")!)
            for await event in call.events {
                if event == .answered { break }
                if case .failed(let failure) = event { throw CocoaError(.userCancelled, userInfo: [NSLocalizedDescriptionKey: "baresip did not answer: \(failure) \(phone.log.suffix(500))"]) }
            }
            let result = try await body(call)
            await call.hangUp()
            return result
        }
    }

    @Test func theTransfereeReachesThePersonAndSaysSo() async throws {
        let personPort = freeSippPort()
        let person = try Sipp(arguments: ["-sn", "uas", "-i", "127.0.0.1", "-p", "\(personPort)", "-mp", "\(freeSippMediaPort())"], seconds: 40)
        try await person.listening(on: personPort)
        let outcome = try await Self.withAnsweredCall { call in
            await call.transfer(to: "sip:person@127.0.0.1:\(personPort)")
        }
        #expect(outcome == .answered)
        let sipp = await person.wait()
        #expect(sipp.output.contains("INVITE"), "the person got the transferee's INVITE: \(sipp.output.suffix(600))")
    }

    @Test func aBusyPersonIsReportedAndTheCallGoesOn() async throws {
        let personPort = freeSippPort()
        let person = try Sipp(scenario: Sipp.busyCallee, arguments: ["-i", "127.0.0.1", "-p", "\(personPort)"], seconds: 30)
        try await person.listening(on: personPort)
        let (outcome, stillUp) = try await Self.withAnsweredCall { call in
            (await call.transfer(to: "sip:person@127.0.0.1:\(personPort)"), !call.isFinished)
        }
        #expect(outcome == .failed(486) && stillUp, "\(outcome)")
        _ = await person.wait()
    }

    /// Our own user agent as the callee knows no REFER: 405, and the transfer is refused.
    @Test func aPeerWithoutReferRefusesIt() async throws {
        var configuration = SIPUserAgent.Configuration()
        configuration.port = 0
        configuration.rtpPorts = TestPorts.rtp
        let callee = try SIPUserAgent(configuration: configuration, logger: Logger(label: "callee"))
        let port = try await callee.start()
        let running = Task { await callee.run() }
        defer { running.cancel() }
        let outcome = try await SIPOutboundCallTests.withUserAgent { ua in
            let call = try await ua.placeCall(from: "0701", to: "ai", gateway: SIPURI("sip:127.0.0.1:\(port)")!)
            for await event in call.events where event == .answered { break }
            let outcome = await call.transfer(to: "sip:person@127.0.0.1:9", timeout: .seconds(10))
            await call.hangUp()
            return outcome
        }
        #expect(outcome == .refused(405))
    }
}
