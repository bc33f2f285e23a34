import Calls
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import Pipeline
import Synchronization
import Testing
import TestSupport
@testable import API

/// The edges of the Twilio surface: a signed WebSocket upgrade, a 1 MB message on one stream
/// while another carries on, status callbacks, and echo mode through a stream.
@Suite(.serialized) struct TwilioStreamEdgeTests {
    static func startMessage(_ sid: String, callSid: String) -> String {
        #"{"event":"start","sequenceNumber":"1","start":{"accountSid":"AC1","streamSid":"\#(sid)","callSid":"\#(callSid)","tracks":["inbound"],"customParameters":{"from":"+15550001111","to":"+15550002222"},"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1}},"streamSid":"\#(sid)"}"#
    }

    static func toneFrame(_ n: Int, on: Bool = true) -> [UInt8] { MediaStreamProvider.toneFrame(n, on: on) }

    static func mediaMessage(_ sid: String, _ n: Int, _ chunk: [UInt8]) -> String { MediaStreamProvider(dialect: .twilio, sid: sid).media(n, chunk).text! }

    @Test func theWebSocketUpgradeNeedsAValidSignature() async throws {
        var config = TwilioStreamTests.config(token: "upgrade-token")
        config.http.publicURL = "https://voice.example.com"
        config.engine.mode = .echo
        let valid = TwilioSignature.compute(url: "wss://voice.example.com/twilio/stream", token: "upgrade-token")
        let upgraded = Locked<[String: Bool]>([:])
        try await TwilioStreamTests.withLiveServer(config) { port in
            for (name, signature) in [("missing", nil), ("forged", "Zm9yZ2VkIHNpZ25hdHVyZQ=="), ("valid", valid)] as [(String, String?)] {
                var configuration = WebSocketClientConfiguration()
                if let signature { configuration.additionalHeaders = [.init("X-Twilio-Signature")!: signature] }
                do {
                    try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/twilio/stream", configuration: configuration,
                                                      logger: Logger(label: "client")) { _, outbound, _ in
                        upgraded.withLock { $0[name] = true }
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                } catch {
                    upgraded.withLock { $0[name] = $0[name] ?? false }
                }
            }
        }
        let seen = upgraded.withLock { $0 }
        #expect(seen["missing"] != true && seen["forged"] != true, "unsigned and forged upgrades are refused: \(seen)")
        #expect(seen["valid"] == true, "a correctly signed upgrade connects: \(seen)")
        let store = try CallStore(path: config.database.path)
        #expect(try await store.calls(inStates: CallState.allCases).isEmpty, "a refused upgrade creates nothing")
    }

    /// One stream sends a 1 MB message and is closed; the other keeps getting its echo.
    @Test func aHugeMessageEndsOnlyItsOwnStream() async throws {
        var config = TwilioStreamTests.config()
        config.engine.mode = .echo
        let echoed = Locked(0)
        let hugeStreamEnded = Locked(false)
        try await TwilioStreamTests.withLiveServer(config) { port in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/twilio/stream", logger: Logger(label: "huge")) { inbound, outbound, _ in
                        try await outbound.write(.text(Self.startMessage("MZhuge", callSid: "CAhuge")))
                        let padding = String(repeating: "A", count: 1 << 20)
                        try await outbound.write(.text(#"{"event":"media","media":{"payload":"\#(padding)"},"streamSid":"MZhuge"}"#))
                        for try await _ in inbound.messages(maxSize: 1 << 20) {}
                        hugeStreamEnded.withLock { $0 = true }
                    }
                }
                group.addTask {
                    try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/twilio/stream", logger: Logger(label: "steady")) { inbound, outbound, _ in
                        try await outbound.write(.text(Self.startMessage("MZsteady", callSid: "CAsteady")))
                        // Finished once more than 40 frames have come back, or the stream ended.
                        let (enough, enoughSink) = AsyncStream.makeStream(of: Void.self)
                        let reader = Task {
                            defer { enoughSink.finish() }
                            for try await message in inbound.messages(maxSize: 1 << 20) {
                                guard case .text(let text) = message, text.contains(#""event":"media""#) else { continue }
                                if echoed.withLock({ $0 += 1; return $0 }) > 40 { enoughSink.finish() }
                            }
                        }
                        let start = ContinuousClock.now
                        // 1 s of tone, then 1.5 s of silence while the echo plays it back.
                        for n in 0..<125 {
                            try await outbound.write(.text(Self.mediaMessage("MZsteady", n, Self.toneFrame(n, on: n < 50))))
                            try await Task.sleep(until: start.advanced(by: .milliseconds(20 * (n + 1))), clock: .continuous)
                        }
                        // The echo may lag the line on a loaded machine: wait for it (the check
                        // below says how much came), not a fixed time.
                        _ = try? await withTimeout(.seconds(10)) { for await _ in enough {} }
                        try await outbound.write(.text(#"{"event":"stop","streamSid":"MZsteady"}"#))
                        reader.cancel()
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(hugeStreamEnded.withLock { $0 }, "the server closed the stream that sent 1 MB")
        #expect(echoed.withLock { $0 } > 40, "the other stream kept its echo: \(echoed.withLock { $0 }) frames")
        let store = try CallStore(path: config.database.path)
        let steady = try #require(try await store.call(externalID: "CAsteady"))
        #expect(steady.state == .completed)
        let huge = try #require(try await store.call(externalID: "CAhuge"))
        #expect(huge.state.isTerminal, "the closed stream's call ended and was stored (\(huge.state))")
    }

    /// Frames sent in a burst the moment the socket opens are read partly by the route's reader
    /// (queued before the event-loop frame reader was added) and partly by that reader; the hand-over
    /// must lose and reorder nothing. The caller side of the recording is the proof: it must be
    /// exactly the audio sent, in order.
    @Test func aBurstRightAfterConnectingArrivesWholeAndInOrder() async throws {
        var config = TwilioStreamTests.config()
        config.engine.mode = .echo
        let speech = try WAVFile.read(Fixtures.audio("en_greeting.ulaw.wav")).data
        let frames = min(150, speech.count / 160)
        try await TwilioStreamTests.withLiveServer(config) { port in
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/twilio/stream", logger: Logger(label: "burst")) { _, outbound, _ in
                try await outbound.write(.text(#"{"event":"connected","protocol":"Call","version":"1.0.0"}"#))
                try await outbound.write(.text(Self.startMessage("MZburst", callSid: "CAburst")))
                for n in 0..<frames { try await outbound.write(.text(Self.mediaMessage("MZburst", n, Array(speech[n * 160..<(n + 1) * 160])))) }
                try await Task.sleep(for: .milliseconds(500))
                try await outbound.write(.text(#"{"event":"stop","streamSid":"MZburst"}"#))
                try await Task.sleep(for: .milliseconds(300))
            }
        }
        let store = try CallStore(path: config.database.path)
        let call = try #require(try await store.call(externalID: "CAburst"))
        #expect(call.state == .completed)
        let path = try #require(try await store.recordingPath(callID: call.outboundId))
        let left = try WAVFile.read(URL(fileURLWithPath: path)).channel(0)
        let sent = speech[0..<frames * 160].map(G711.decodeMuLaw)
        #expect(left.count >= sent.count, "recorded \(left.count) caller samples of \(sent.count) sent")
        #expect(Array(left.prefix(sent.count)) == sent, "the caller audio is exactly what was sent, in order")
    }

    /// Echo mode: what the caller says comes back through decode, resample, VAD, encode and pacing.
    @Test func echoModePlaysTheCallerBack() async throws {
        var config = TwilioStreamTests.config()
        config.engine.mode = .echo
        let speech = try WAVFile.read(Fixtures.audio("en_greeting.ulaw.wav")).data
        let back = Locked<[(at: ContinuousClock.Instant, bytes: [UInt8])]>([])
        try await TwilioStreamTests.withLiveServer(config) { port in
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/twilio/stream", logger: Logger(label: "echo")) { inbound, outbound, _ in
                try await outbound.write(.text(Self.startMessage("MZecho", callSid: "CAecho")))
                let reader = Task {
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message, text.contains(#""event":"media""#),
                              let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                              let payload = (object["media"] as? [String: Any])?["payload"] as? String,
                              let bytes = Data(base64Encoded: payload) else { continue }
                        back.withLock { $0.append((.now, Array(bytes))) }
                    }
                }
                let script = Self.pausingAfterEachUtterance(speech)
                let start = ContinuousClock.now
                for (n, chunk) in script.enumerated() {
                    try await outbound.write(.text(Self.mediaMessage("MZecho", n, chunk)))
                    try await Task.sleep(until: start.advanced(by: .milliseconds(20 * (n + 1))), clock: .continuous)
                }
                try await outbound.write(.text(#"{"event":"stop","streamSid":"MZecho"}"#))
                try await Task.sleep(for: .milliseconds(300))
                reader.cancel()
            }
        }
        // The echo comes back utterance by utterance (each once the VAD ends it): split what came
        // back where the media paused, and find each piece in what was said.
        var pieces: [[Int16]] = []
        var last: ContinuousClock.Instant?
        for (at, bytes) in back.value {
            if last == nil || last!.duration(to: at) > .milliseconds(100) { pieces.append([]) }
            pieces[pieces.count - 1] += bytes.map(G711.decodeMuLaw)
            last = at
        }
        let sent = speech.map(G711.decodeMuLaw)
        let returned = pieces.reduce(0) { $0 + $1.count }
        #expect(returned > sent.count / 2, "audio came back: \(returned) of \(sent.count) samples in \(pieces.count) pieces")
        let longest = try #require(pieces.max { $0.count < $1.count })
        let match = bestCorrelation(sent, longest, maxLag: sent.count)
        #expect(match.value > 0.8, "the echo is the caller's speech (correlation \(match.value) at lag \(match.lag))")
    }

    /// μ-law speech as 20 ms frames, with silence after each utterance (as the server's VAD splits
    /// it) long enough for its echo to play out: a caller who talks over the echo stops it.
    static func pausingAfterEachUtterance(_ speech: [UInt8]) -> [[UInt8]] {
        let silence = [UInt8](repeating: 0xFF, count: 160)
        var vad = VoiceActivityDetector()
        var script: [[UInt8]] = []
        var utteranceStart = 0
        for n in 0..<speech.count / 160 {
            let frame = Array(speech[n * 160..<(n + 1) * 160])
            script.append(frame)
            switch vad.process(AudioFrame(samples: frame.map(G711.decodeMuLaw), sampleRate: 8000)).event {
            case .speechStarted?: utteranceStart = script.count
            case .speechEnded?: script += Array(repeating: silence, count: script.count - utteranceStart + 25)
            case nil: break
            }
        }
        return script + Array(repeating: silence, count: 100)
    }

    @Test func statusCallbacksBecomeCallEvents() async throws {
        let config = TwilioStreamTests.config()
        let store = try CallStore(path: config.database.path)
        var call = CallRecord(outboundId: CallRecord.newID(direction: .inbound), direction: .inbound, callerNumber: "+15550001111",
                              calleeNumber: "+15550002222", callerDisplayName: "", purpose: "inbound", questions: [], maxDuration: 60)
        call.callId = "CAstatus"
        try await store.insert(call)
        let app = Application(router: VoiceBridgeServer(config: config, store: store, logger: Logger(label: "test")).router())
        try await app.test(.router) { client in
            try await client.execute(uri: "/twilio/status", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                     body: ByteBuffer(string: "CallSid=CAstatus&StreamSid=MZ1&StreamEvent=stream-error&StreamError=Bad+frame")) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/twilio/status", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                     body: ByteBuffer(string: "CallSid=CAunknown&StreamEvent=stream-started")) { response in
                #expect(response.status == .noContent, "an unknown call is acknowledged and records nothing")
            }
        }
        let events = try await store.events().filter { $0.type == "twilio_stream_status" }
        #expect(events.count == 1)
        let payload = try #require(events.first.flatMap { try JSONSerialization.jsonObject(with: Data($0.payload.utf8)) as? [String: String] })
        #expect(events.first?.outboundId == call.outboundId)
        #expect(payload["stream_event"] == "stream-error" && payload["error"] == "Bad frame" && payload["stream_sid"] == "MZ1")
    }
}
