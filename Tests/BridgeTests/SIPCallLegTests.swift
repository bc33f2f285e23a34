import Foundation
import Pipeline
import Synchronization
import Testing
import TestLanes
import TestSupport
@testable import Bridge

/// A SIP call through sipp's RTP echo, seen through the media-stream model.
@Suite(.serialized, .enabled(if: Sipp.isInstalled), .tags(.timed)) struct SIPCallLegTests {
    final class Recorder: Sendable {
        let events = Locked<[MediaStreamEvent]>([])
        func add(_ e: MediaStreamEvent) { events.withLock { $0.append(e) } }
        var all: [MediaStreamEvent] { events.withLock { $0 } }
        var media: [UInt8] { all.flatMap { if case .media(let m) = $0 { m.payload } else { [UInt8]() } } }
        var marks: [String] { all.compactMap { if case .mark(let n) = $0 { n } else { nil } } }
    }

    @Test func rtpBecomesMediaStreamEventsAndCommandsBecomePacedRTP() async throws {
        let fixture = try WAVFile.read(Fixtures.audio("en_yes_attend.ulaw.wav")).data   // μ-law, 1.87 s
        let sipPort = freeSippPort(), mediaPort = freeSippMediaPort()
        let sipp = try Sipp(arguments: ["-sn", "uas", "-i", "127.0.0.1", "-p", "\(sipPort)", "-mp", "\(mediaPort)", "-rtp_echo"])
        try await sipp.listening(on: sipPort)
        let recorder = Recorder()
        let scheduler = PacerScheduler<[UInt8]>()
        let clock = ContinuousClock()
        let (sentAfterClear, markDelay, packetsSent, silentBytes) = try await SIPOutboundCallTests.withUserAgent { ua in
            let ticking = Task { await scheduler.run(clock: ContinuousClock()) }
            defer { ticking.cancel() }
            let call = try await ua.placeCall(from: "0701", to: "0109", gateway: SIPURI("sip:127.0.0.1:\(sipPort)")!, outboundCallID: "ob-0000beef")
            for await event in call.events where event == .answered { break }
            let leg = try SIPCallLeg(call: call, scheduler: scheduler)
            let running = Task { await leg.run() }
            let reading = Task { for await e in leg.events { recorder.add(e) } }
            // Nothing is sent yet, so the echo is silent: the stream still carries a frame per 20 ms.
            try await Task.sleep(for: .milliseconds(1000))
            let silentFrames = recorder.all.count { if case .media = $0 { true } else { false } }
            #expect((40...55).contains(silentFrames), "a silent peer's stream runs at 50 frames a second: \(silentFrames) in 1 s")
            let silentBytes = recorder.media.count

            // Send the fixture as a producer faster than real time would: 80 ms chunks, no waiting.
            let start = clock.now
            for offset in stride(from: 0, to: fixture.count, by: 640) {
                await leg.send(.media(Array(fixture[offset..<min(offset + 640, fixture.count)])))
            }
            let sendReturned = start.duration(to: clock.now)
            await leg.send(.mark("greeting-done"))
            try await recorder.events.wait(for: "the mark back") { $0.contains(.mark("greeting-done")) }
            let markDelay = start.duration(to: clock.now)
            // The leg queues up to 500 ms: the last of the 1.87 s is taken about 1.37 s in.
            #expect(sendReturned > .milliseconds(1200), "the producer was held to real time (\(sendReturned))")

            // Clear: half a second of audio is dropped, not played.
            let before = call.media!.counters.packetsSent
            await leg.send(.media([UInt8](repeating: 0x55, count: 80)))
            Task { await leg.send(.media([UInt8](repeating: 0x55, count: 8000))) }   // 1 s, suspends
            try await Task.sleep(for: .milliseconds(100))
            await leg.send(.clear)
            try await Task.sleep(for: .milliseconds(600))
            let sentAfterClear = call.media!.counters.packetsSent - before
            try await Task.sleep(for: .milliseconds(300))   // let the echo of the fixture drain
            let packetsSent = call.media!.counters.packetsSent
            await leg.hangUp()
            await running.value
            await reading.value
            return (sentAfterClear, markDelay, packetsSent, silentBytes)
        }
        let result = await sipp.wait()
        #expect(result.status == 0, "\(result.output.suffix(1500))")

        let events = recorder.all
        guard case .start(let start)? = events.first else { Issue.record("first event is not start"); return }
        #expect(start.customParameters["direction"] == "outbound" && start.customParameters["to"] == "0109")
        #expect(start.customParameters["outbound_call_id"] == "ob-0000beef")
        #expect(events.last == .stop)
        #expect(recorder.marks == ["greeting-done"])
        let frames = (fixture.count + 159) / 160
        #expect(markDelay >= .milliseconds(20 * frames - 60) && markDelay < .milliseconds(20 * frames + 400),
                "the mark came back when playback passed it: \(markDelay) for \(frames) frames")
        #expect(sentAfterClear < 15, "after clear only what was already due went out: \(sentAfterClear) frames")
        #expect(packetsSent < frames + 40)
        // What came back is our fixture: RTP → μ-law media events, in order.
        let echoed = G711.decode(Array(recorder.media.dropFirst(silentBytes)), law: .muLaw)
        let original = G711.decode(fixture, law: .muLaw)
        let correlation = bestCorrelation(Array(original.prefix(8000)), echoed, maxLag: 2400)
        #expect(correlation.value > 0.95, "echo correlates with the fixture: \(correlation)")
    }
}
