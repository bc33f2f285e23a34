import Analysis
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Pipeline
import Testing
import TestSupport
import Tools
@testable import Calls
@testable import Realtime

/// What `transfer.*` gives a warm transfer, each piece run for real: the operator's hold music
/// converted to the phone's μ-law; the person's spoken yes or no heard through the offline
/// recognizer (espeak's voice over μ-law, as a phone line carries it); the briefing written by a
/// Chat Completions server speaking the documented format, and the scripted one when it fails.
@Suite(.serialized) struct WarmTransferPartsTests {
    static func config(holdMusic: String? = nil, modelPort: Int? = nil) -> VoiceBridgeConfig {
        var config = VoiceBridgeConfig()
        config.transfer.mode = .warm
        config.transfer.holdMusic = holdMusic
        config.engine.local.moonshinePath = Fixtures.moonshine
        if let modelPort {
            config.analysis.baseURL = "http://127.0.0.1:\(modelPort)/v1"
            config.analysis.apiKey = "sk-test"
        }
        return config
    }

    /// A 16-bit WAV file of `seconds` of 440 Hz at `rate`, in `channels`.
    static func wav(rate: Int, channels: Int, seconds: Double) throws -> String {
        let frames = Int(Double(rate) * seconds)
        var pcm = [UInt8]()
        for i in 0..<frames {
            let sample = UInt16(bitPattern: Int16(8000 * sin(2 * Double.pi * 440 * Double(i) / Double(rate))))
            for _ in 0..<channels { pcm += [UInt8(sample & 0xFF), UInt8(sample >> 8)] }
        }
        func u32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        let header = Array("RIFF".utf8) + u32(36 + pcm.count) + Array("WAVEfmt ".utf8) + u32(16) + u16(1) + u16(channels)
            + u32(rate) + u32(rate * channels * 2) + u16(channels * 2) + u16(16) + Array("data".utf8) + u32(pcm.count)
        let path = NSTemporaryDirectory() + "hold-\(UUID().uuidString).wav"
        try Data(header + pcm).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func holdMusicIsThePhonesMuLawAndABadFileStopsTheServerWithItsKey() async throws {
        let music = try Self.wav(rate: 44_100, channels: 2, seconds: 3)
        defer { try? FileManager.default.removeItem(atPath: music) }
        let settings = try #require(try CallSystem.warmTransfer(Self.config(holdMusic: music), recognizer: nil, logger: Logger(label: "test")))
        #expect(abs(settings.holdAudio.count - 24_000) <= 160 && settings.holdAudio.count % 160 == 0, "3 s at 8 kHz in whole frames: \(settings.holdAudio.count)")
        let decoded = G711.decode(Array(settings.holdAudio[8000..<16_000]), law: .muLaw)
        let crossings = zip(decoded, decoded.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect((860...900).contains(crossings), "still 440 Hz after resampling: \(crossings) zero crossings in 1 s")
        #expect(try CallSystem.warmTransfer(Self.config(), recognizer: nil, logger: Logger(label: "test"))?.holdAudio == HoldAudio.tone)

        let text = NSTemporaryDirectory() + "hold-\(UUID().uuidString).wav"
        try Data("not audio".utf8).write(to: URL(fileURLWithPath: text))
        defer { try? FileManager.default.removeItem(atPath: text) }
        for (path, says) in [(text, "not a WAV file"), ("/nonexistent/hold.wav", "cannot be read")] {
            #expect { try CallSystem.warmTransfer(Self.config(holdMusic: path), recognizer: nil, logger: Logger(label: "test")) } throws: {
                "\($0)".hasPrefix("transfer.hold_music: \(path): \(says)")
            }
        }
    }

    /// The person's words, synthesized, μ-law round-tripped and fed frame by frame as their leg
    /// delivers them: the utterance is cut by the VAD and read as yes or no.
    @Test(arguments: [("Yes, I will.", true), ("No, sorry.", false), ("Hello?", nil)] as [(String, Bool?)])
    func aSpokenYesAcceptsAndNoDeclines(line: String, decision: Bool?) async throws {
        let recognizer = try MoonshineTranscriber(directory: Fixtures.moonshine, lanes: 1)
        let settings = try #require(try CallSystem.warmTransfer(Self.config(), recognizer: recognizer, logger: Logger(label: "test")))
        let transcribe = try #require(settings.transcribe, "accept_by_voice is on by default")
        let voice = LocalVoice(tts: try EspeakSynthesizer())
        let speech = try await voice.frames(saying: line).flatMap(\.samples)
        let muLaw = G711.encode([Int16](repeating: 0, count: 1600) + speech + [Int16](repeating: 0, count: 6400), law: .muLaw)
        var ear = SpokenDecision()
        var heard: [String] = []
        for start in stride(from: 0, to: muLaw.count - 159, by: 160) {
            guard let utterance = ear.hear(Array(muLaw[start..<start + 160])) else { continue }
            heard.append(await transcribe(utterance) ?? "")
        }
        #expect(heard.count == 1, "one utterance: \(heard)")
        #expect(heard.first.flatMap(SpokenDecision.decision(in:)) == decision, "\(line) → \(heard)")
    }

    @Test func theModelWritesTheBriefingAndTheScriptStandsInWhenItFails() async throws {
        let bodies = Locked<[String]>([])
        let statuses = Locked([200, 500])
        let router = Router()
        router.post("v1/chat/completions") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 1 << 20))
            bodies.withLock { $0.append(body) }
            let status = statuses.withLock { $0.isEmpty ? 500 : $0.removeFirst() }
            let content = "Jane Doe is calling about her booking on Friday and wants to move it to Monday.\nShe is polite."
            let answer = JSONValue.object(["choices": .array([.object(["message": .object(["role": .string("assistant"), "content": .string(content)])])])]).serialized
            return Response(status: .init(code: status), body: .init(byteBuffer: ByteBuffer(string: answer)))
        }
        try await withLoopbackServer(router: router, webSocketRouter: Router(context: BasicWebSocketRequestContext.self)) { port in
            let settings = try #require(try CallSystem.warmTransfer(Self.config(modelPort: port), recognizer: nil, logger: Logger(label: "test")))
            let write = try #require(settings.writeBriefing, "briefing: auto with a model configured")
            let input = AnalysisInput(purpose: "the Friday booking", transcript: [.init(speaker: "ai", text: "How can I help?"),
                                                                                  .init(speaker: "customer", text: "I need to move my booking to Monday, can I talk to someone?")],
                                      answers: [], taskCompleted: false)
            #expect(await write(input, "the caller asked for a person") == "Jane Doe is calling about her booking on Friday and wants to move it to Monday. She is polite.")
            let body = try JSONValue.parse(try #require(bodies.value.first))
            #expect(body["model"]?.stringValue == "gpt-4o-mini")
            let messages = body["messages"]?.arrayValue ?? []
            #expect(messages.first?["content"]?.stringValue?.contains("the caller asked for a person") == true)
            #expect(messages.last?["content"]?.stringValue?.contains("Callee: I need to move my booking to Monday") == true)
            #expect(await write(input, "the caller asked for a person") == nil, "a failing model: nil, and the session reads the scripted briefing")
        }
        var scripted = Self.config(modelPort: 9)
        scripted.transfer.briefing = .scripted
        #expect(try CallSystem.warmTransfer(scripted, recognizer: nil, logger: Logger(label: "test"))?.writeBriefing == nil)
        #expect(try CallSystem.warmTransfer(Self.config(), recognizer: nil, logger: Logger(label: "test"))?.writeBriefing == nil, "no model: scripted")
    }
}
