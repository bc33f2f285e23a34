import Foundation
import Pipeline
import Synchronization
import Testing
import TestSupport
@testable import Bridge

/// A real softphone on both ends of a call.
@Suite(.serialized, .enabled(if: Baresip.isInstalled)) struct BaresipTests {
    @Test func baresipCallsInAndTheAudioWeDecodeIsTheFixture() async throws {
        let fixture = try WAVFile.read(Fixtures.audio("en_yes_attend.wav")).samples
        let microphone = try Baresip.padded(Fixtures.audio("en_yes_attend.wav"), before: 0.5, after: 1.5)
        let heard = Mutex<[UInt8]>([])
        let scheduler = PacerScheduler<[UInt8]>()
        let (events, log) = try await SIPInboundCallTests.withUserAgent(rtpBase: 33200) { ua, port in
            let ticking = Task { await scheduler.run(clock: ContinuousClock()) }
            defer { ticking.cancel() }
            let phone = try Baresip(microphone: microphone, dial: "sip:0212345678@127.0.0.1:\(port)", seconds: 6, rtpPorts: 33400...33420)
            var incoming = ua.incomingCalls.makeAsyncIterator()
            guard let call = await incoming.next() else { return ([MediaStreamEvent](), phone.log) }
            let leg = try SIPCallLeg(call: call, scheduler: scheduler)
            let running = Task { await leg.run() }
            var events: [MediaStreamEvent] = []
            for await event in leg.events {
                if case .media(let m) = event { heard.withLock { $0 += m.payload } } else { events.append(event) }
            }
            await running.value
            await phone.stop()
            return (events, phone.log)
        }
        #expect(events.first.map { if case .start = $0 { true } else { false } } == true, "log: \(log.suffix(800))")
        #expect(events.last == .stop)
        let decoded = G711.decode(heard.withLock { $0 }, law: .muLaw)
        #expect(decoded.count > fixture.count, "the whole padded file arrived: \(decoded.count) samples")
        let correlation = bestCorrelation(fixture, decoded, maxLag: 8000)
        #expect(correlation.value > 0.9, "what we decoded correlates with the fixture: \(correlation)")
    }

    @Test func baresipAnswersOurCallAndRecordsWhatWeSend() async throws {
        let fixtureULaw = try WAVFile.read(Fixtures.audio("en_no_change.ulaw.wav")).data
        let fixture = G711.decode(fixtureULaw, law: .muLaw)
        let silence = try Baresip.padded(Fixtures.audio("en_no_change.wav"), before: 0, after: 0)   // its own mic is irrelevant
        let phone = try Baresip(microphone: silence, answer: true, seconds: 10, rtpPorts: 33500...33520)
        try await Task.sleep(for: .milliseconds(700))
        let scheduler = PacerScheduler<[UInt8]>()
        let ended = try await SIPOutboundCallTests.withUserAgent(rtpBase: 33600) { ua in
            let ticking = Task { await scheduler.run(clock: ContinuousClock()) }
            defer { ticking.cancel() }
            let call = try await ua.placeCall(from: "0701", to: "bare", gateway: SIPURI("sip:127.0.0.1:\(phone.sipPort)")!)
            var answered = false
            for await event in call.events {
                if event == .answered { answered = true; break }
                if case .failed = event { break }
            }
            guard answered else { return false }
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
            return played
        }
        try await Task.sleep(for: .milliseconds(500))
        await phone.stop()
        #expect(ended, "the call was answered and our audio played out: \(phone.log.suffix(800))")
        let recording = try #require(phone.decodedRecording(), "baresip wrote what it heard: \(phone.log.suffix(800))")
        let heard = try WAVFile.read(recording)
        #expect(heard.sampleRate == 8000)
        let correlation = bestCorrelation(fixture, heard.samples, maxLag: 8000)
        #expect(correlation.value > 0.9, "baresip heard our fixture: \(correlation)")
    }
}
