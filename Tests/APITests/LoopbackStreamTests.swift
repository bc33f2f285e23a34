import AsyncHTTPClient
import Calls
import Foundation
import HummingbirdWSClient
import Logging
import Pipeline
import Synchronization
import Testing
import TestSupport
@testable import API

/// `engine.mode: loopback` through a Twilio stream on the whole server: the caller's audio comes
/// back, in-band key presses are heard, and the call's stage meters show on its live report and on
/// `/metrics`. That every frame comes back, none dropped, each counted through every stage, is
/// `MediaStreamCallTests`' check, in virtual time: here nothing depends on how busy the machine is.
@Suite(.serialized) struct LoopbackStreamTests {

    static func get(_ port: Int, _ path: String) async throws -> (status: UInt, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status.code, String(buffer: body))
    }

    @Test func everyFrameComesBackThroughThePipelineAndIsMetered() async throws {
        var config = TwilioStreamTests.config()
        config.engine.mode = .loopback
        let silence = [UInt8](repeating: 0xFF, count: 160)
        let speech = try WAVFile.read(Fixtures.audio("en_greeting.ulaw.wav")).data
        // Key 1, a pause, key 2, a pause, then speech without pauses: the agent "talks" (plays the
        // caller back) the whole time the caller does, and nothing may cut it off.
        let keys = MediaStreamProvider.dtmf(697, 1209, frames: 5) + Array(repeating: silence, count: 5) + MediaStreamProvider.dtmf(697, 1336, frames: 5) + Array(repeating: silence, count: 5)
        let script = keys + (0..<(speech.count / 160)).map { Array(speech[$0 * 160..<($0 + 1) * 160]) }
        let back = Locked<[UInt8]>([])
        let clears = Locked(0)
        let live = Locked<(report: String, metrics: String)>(("", ""))
        try await TwilioStreamTests.withLiveServer(config) { port in
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/twilio/stream", logger: Logger(label: "loopback")) { inbound, outbound, _ in
                try await outbound.write(.text(TwilioStreamEdgeTests.startMessage("MZloop", callSid: "CAloop")))
                let reader = Task {
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { continue }
                        switch object["event"] as? String {
                        case "media":
                            if let payload = (object["media"] as? [String: Any])?["payload"] as? String, let bytes = Data(base64Encoded: payload) {
                                back.withLock { $0 += bytes }
                            }
                        case "mark":
                            let name = (object["mark"] as? [String: Any])?["name"] as? String ?? ""
                            try await outbound.write(.text(#"{"event":"mark","streamSid":"MZloop","mark":{"name":"\#(name)"}}"#))
                        case "clear": clears.withLock { $0 += 1 }
                        default: break
                        }
                    }
                }
                let start = ContinuousClock.now
                for (n, chunk) in script.enumerated() {
                    try await outbound.write(.text(TwilioStreamEdgeTests.mediaMessage("MZloop", n, chunk)))
                    try await Task.sleep(until: start.advanced(by: .milliseconds(20 * (n + 1))), clock: .continuous)
                    if n == script.count / 2 {
                        let list = try await Self.get(port, "/api/outbound/?limit=1")
                        let id = try #require(list.body.firstMatch(of: /"outbound_id":"([^"]+)"/)?.1)
                        let report = try await Self.get(port, "/api/outbound/\(id)/report")
                        let metrics = try await Self.get(port, "/metrics")
                        live.withLock { $0 = (report.body, metrics.body) }
                    }
                }
                // The frames play out in real time behind the script: under load (4 test processes
                // beside two busy loops) 123 of 294 had come back 400 ms after the last was sent.
                try? await back.wait(for: "half the caller's frames back", timeout: .seconds(30)) { $0.count / 160 > script.count / 2 }
                try await outbound.write(.text(#"{"event":"stop","streamSid":"MZloop"}"#))
                try await Task.sleep(for: .milliseconds(300))
                reader.cancel()
            }
        }
        let returned = back.value.count / 160
        #expect(returned > script.count / 2, "the caller's audio came back: \(returned) of \(script.count) frames")
        #expect(clears.value == 0, "barge-in is off: talking over the playback does not clear it")

        // While the call ran: its report was live, and /metrics summed the stages.
        let (liveReport, metrics) = live.value
        #expect(liveReport.contains(#""live":true"#), "\(liveReport)")
        #expect(liveReport.contains(#""stage":"tones""#) && liveReport.contains(#""stage":"leg-queue""#), "\(liveReport)")
        #expect(metrics.contains(#"voicebridge_stage_frames_in_total{side="caller",stage="decode"}"#), "stage counters on /metrics")
        #expect(metrics.contains(#"voicebridge_stage_queue_high_water{side="agent",stage="leg-queue"}"#))

        // After it: the stored report names every caller-side stage, and the keys.
        let store = try CallStore(path: config.database.path)
        let call = try #require(try await store.page(states: nil, search: nil, limit: 1, offset: 0).calls.first)
        let report = try #require(try await store.report(callID: call.outboundId))
        let caller = Dictionary(uniqueKeysWithValues: report.stages.filter { $0.side == "caller" }.map { ($0.stage, $0) })
        #expect(Array(caller.keys).sorted() == ["barge-in", "decode", "record", "resample", "tones", "vad"])
        #expect(report.tones == ["dtmf 1", "dtmf 2"], "the in-band keys were heard: \(report.tones)")
        let transcript = try await store.transcript(callID: call.outboundId).map(\.entry.text)
        #expect(transcript == ["[DTMF 1]", "[DTMF 2]"], "\(transcript)")
    }
}
