import Bridge
import Foundation
import Logging
import NIOCore
import Pipeline
import Synchronization
import Testing

/// The browser's media stream ("Try it"): its messages read and written, and its microphone (16 kHz
/// linear PCM) made the call's 8 kHz μ-law by the leg, frequency kept, with the 16 kHz audio
/// carried beside it for a 16 kHz engine.
@Suite struct BrowserDialectTests {
    let dialect = MediaStreamDialect.browser

    @Test func aStartCarriesTheCallAndItsRateAndBadOnesAreRefusedByField() throws {
        guard case .message(.start(let start), _) = try dialect.decodeEvent(
            #"{"event":"start","start":{"media_format":{"encoding":"audio/L16","sample_rate":16000},"call":{"template":"planning"}}}"#) else {
            Issue.record("no start"); return
        }
        #expect(start.sampleRate == 16000 && start.encoding == "audio/L16" && start.streamSid.hasPrefix("BR"))
        #expect(start.customParameters["call"] == #"{"template":"planning"}"#)
        let refusals = [
            (#"{"event":"start","start":{"media_format":{"encoding":"audio/x-mulaw"},"call":{}}}"#, "encoding"),
            (#"{"event":"start","start":{"media_format":{"sample_rate":4000},"call":{}}}"#, "sample_rate"),
            (#"{"event":"start","start":{}}"#, "start.call"),
            (#"{"event":"media","media":{"payload":"AAEC"}}"#, "odd length"),
        ]
        for (text, field) in refusals {
            #expect { try dialect.decodeEvent(text) } throws: { "\($0)".contains(field) }
        }
    }

    @Test func agentAudioGoesOutAs8kHzPCMWithMarksAndClears() throws {
        let frame = G711.encode((0..<160).map { Int16(($0 % 20) * 500 - 5000) }, law: .muLaw)
        let out = try JSONSerialization.jsonObject(with: Data(try #require(dialect.encodeCommand(.media(frame), streamSid: "")).utf8)) as? [String: Any]
        let payload = try #require(Data(base64Encoded: (out?["media"] as? [String: Any])?["payload"] as? String ?? ""))
        #expect(PCM16.samples([UInt8](payload)) == G711.decode(frame, law: .muLaw))
        #expect(dialect.encodeCommand(.mark("a#200#0"), streamSid: "") == #"{"event":"mark","mark":{"name":"a#200#0"}}"#)
        #expect(dialect.encodeCommand(.clear, streamSid: "") == #"{"event":"clear"}"#)
        guard case .message(.mark("a#200#0"), _) = try dialect.decodeEvent(#"{"event":"mark","mark":{"name":"a#200#0"}}"#) else { Issue.record("mark echo"); return }
    }

    /// A hold pauses what the page already buffered (a phone provider's dialect has no word for it:
    /// its buffer plays out).
    @Test func aHoldPausesThePageAndReleasingItResumesIt() {
        let sent = Mutex<[String]>([])
        for dialect in [MediaStreamDialect.browser, .twilio] {
            let leg = MediaStreamSocketLeg(dialect: dialect, scheduler: PacerScheduler<[UInt8]>(), logger: Logger(label: "test"),
                                           socket: .init(send: { messages in sent.withLock { $0 += messages.map { String(buffer: $0.text) } } }, close: {}))
            #expect(leg.holdPlayback(true) && leg.holdPlayback(false))
        }
        #expect(sent.withLock { $0 } == [#"{"event":"pause"}"#, #"{"event":"resume"}"#])
    }

    @Test func theMicrophoneAt16kHzBecomes20msFramesOfTheSameToneAndKeepsItsWideband() async throws {
        let leg = MediaStreamSocketLeg(dialect: .browser, scheduler: PacerScheduler<[UInt8]>(), logger: Logger(label: "test"),
                                       socket: .init(send: { _ in }, close: {}))
        leg.receive(#"{"event":"start","start":{"media_format":{"encoding":"audio/L16","sample_rate":16000},"call":{"template":"t"}}}"#)
        // One second of 500 Hz at 16 kHz, in the page's 20 ms messages.
        let tone = (0..<16000).map { Int16(8000 * sin(2 * Double.pi * 500 * Double($0) / 16000)) }
        for start in stride(from: 0, to: tone.count, by: 320) {
            let bytes = PCM16.bytes(Array(tone[start..<start + 320]))
            #expect(leg.receive(#"{"event":"media","media":{"payload":"\#(Data(bytes).base64EncodedString())"}}"#) == .accepted)
        }
        leg.finish()
        var narrow: [Int16] = []
        var wide: [Int16] = []
        for await event in leg.events {
            if case .media(let media) = event {
                #expect(media.payload.count == 160)
                narrow += G711.decode(media.payload, law: .muLaw)
                wide += media.wideband ?? []
            }
        }
        // The 16 kHz microphone reaches the call as it came, 320 samples beside each frame.
        #expect(wide == Array(tone.prefix(wide.count)) && wide.count >= 15_000, "\(wide.count) samples at 16 kHz")
        #expect((7600...8000).contains(narrow.count), "about a second at 8 kHz: \(narrow.count)")
        // 500 Hz: 1000 zero crossings a second, counted over the steady part.
        let steady = narrow.dropFirst(800).prefix(6400)
        let crossings = zip(steady, steady.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect((790...810).contains(crossings), "\(crossings) crossings in 0.8 s")
    }
}
