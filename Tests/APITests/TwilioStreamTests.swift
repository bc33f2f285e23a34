import Calls
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import Pipeline
import ServiceLifecycle
import Synchronization
import Testing
import TestSupport
import Tracing
@testable import API

/// A Twilio-protocol client written here (its own JSON, not the server's codec) against the
/// running server with the local engine.
@Suite(.serialized) struct TwilioStreamTests {
    static func config(token: String? = nil) -> VoiceBridgeConfig {
        var c = VoiceBridgeConfig()
        c.http.port = 0
        c.sip.port = 0
        c.sip.rtpPortMin = TestPorts.rtp.lowerBound
        c.sip.rtpPortMax = TestPorts.rtp.upperBound
        c.engine.local.moonshinePath = Fixtures.moonshine
        c.twilio.authToken = token
        c.database.path = FileManager.default.temporaryDirectory.appendingPathComponent("vb-twilio-\(UUID().uuidString)/db.sqlite").path
        return c
    }

    /// The same, its store on `database`: the SQLite file, or a new PostgreSQL database.
    static func config(database: StoreBackend) async throws -> VoiceBridgeConfig {
        var c = config()
        if database == .postgres { c.database.url = try await database.newLocation() }
        return c
    }

    /// The whole server (HTTP, WebSocket, SIP, local engine) on free ports for `body`, then a
    /// graceful shutdown; the caller reopens `config.database.location` to check what was kept.
    static func withLiveServer(_ config: VoiceBridgeConfig, tracer: (any Tracer)? = nil, _ body: @Sendable (Int) async throws -> Void) async throws {
        let store = try await CallStore.open(config.database.location)
        let calls = try await CallSystem.start(config: config, store: store, logger: Logger(label: "test"), tracer: tracer)
        try await withLiveServer(config, store: store, calls: calls, body)
    }

    static func withLiveServer(_ config: VoiceBridgeConfig, store: CallStore, calls: CallSystem, _ body: @Sendable (Int) async throws -> Void) async throws {
        let server = VoiceBridgeServer(config: config, store: store, logger: Logger(label: "test"), calls: calls)
        let (ports, portInput) = AsyncStream.makeStream(of: Int.self)
        let app = server.application { portInput.yield($0) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            do { try await body(port) } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    final class ClientLog: Sendable {
        let media = Mutex<[ContinuousClock.Instant]>([])
        let marks = Mutex(0)
    }

    @Test func aTwilioStreamBecomesAnInboundCallThatIsStored() async throws {
        let config = Self.config()
        let log = ClientLog()
        let fixture = try WAVFile.read(Fixtures.audio("en_yes_attend.ulaw.wav")).data
        try await Self.withLiveServer(config) { port in
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/twilio/stream", logger: Logger(label: "client")) { inbound, outbound, _ in
                let sid = "MZ00000000000000000000000000000001"
                try await outbound.write(.text(#"{"event":"connected","protocol":"Call","version":"1.0.0"}"#))
                // Hostile frames first: media before start, a binary frame. The stream must survive.
                try await outbound.write(.text(#"{"event":"media","sequenceNumber":"1","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":"//8="},"streamSid":"\#(sid)"}"#))
                try await outbound.write(.binary(ByteBuffer(bytes: [1, 2, 3])))
                try await outbound.write(.text(#"{"event":"start","sequenceNumber":"1","start":{"accountSid":"AC1","streamSid":"\#(sid)","callSid":"CA1","tracks":["inbound"],"customParameters":{"from":"+15550001111","to":"+15550002222"},"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1}},"streamSid":"\#(sid)"}"#))
                try await outbound.write(.text(#"{"event":"media","media":{"payload":"not base64!"},"streamSid":"\#(sid)"}"#))
                try await outbound.write(.text(#"{"event":"hello"}"#))
                let reader = Task {
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { continue }
                        switch object["event"] as? String {
                        case "media": log.media.withLock { $0.append(.now) }
                        case "mark":
                            // Echo as Twilio does once the audio before it has played (it is paced, so now).
                            let name = (object["mark"] as? [String: Any])?["name"] as? String ?? ""
                            try await outbound.write(.text(#"{"event":"mark","sequenceNumber":"9","streamSid":"\#(sid)","mark":{"name":"\#(name)"}}"#))
                            log.marks.withLock { $0 += 1 }
                        default: break
                        }
                    }
                }
                // 9 s of caller audio in real time: silence, then the fixture as the answer.
                let start = ContinuousClock.now
                for n in 0..<450 {
                    let offset = (n - 300) * 160
                    let chunk = offset >= 0 && offset + 160 <= fixture.count ? Array(fixture[offset..<offset + 160]) : [UInt8](repeating: 0xFF, count: 160)
                    try await outbound.write(.text(#"{"event":"media","sequenceNumber":"\#(n + 2)","media":{"track":"inbound","chunk":"\#(n + 1)","timestamp":"\#(n * 20)","payload":"\#(Data(chunk).base64EncodedString())"},"streamSid":"\#(sid)"}"#))
                    try await Task.sleep(until: start.advanced(by: .milliseconds(20 * (n + 1))), clock: .continuous)
                }
                try await outbound.write(.text(#"{"event":"stop","sequenceNumber":"500","stop":{"accountSid":"AC1","callSid":"CA1"},"streamSid":"\#(sid)"}"#))
                try await Task.sleep(for: .milliseconds(500))
                reader.cancel()
                try? await outbound.close(.normalClosure, reason: nil)
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        let reopened = try CallStore(path: config.database.path)
        let call = try #require(try await reopened.calls(inStates: CallState.allCases).first { $0.direction == .inbound })
        #expect(call.state == .completed && call.callerNumber == "+15550001111" && call.callId == "CA1")
        let transcript = try await reopened.transcript(callID: call.outboundId)
        #expect(transcript.first?.entry.speaker == .ai && transcript.first?.entry.text.contains("Hello, you have reached") == true)
        // How it is paced is MediaStreamCallTests' check, in virtual time.
        let arrivals = log.media.withLock { $0 }
        #expect(arrivals.count > 150, "the greeting came back as media: \(arrivals.count) messages")
        #expect(log.marks.withLock { $0 } > 0, "marks were sent for played-time accounting")
    }

    @Test func theVoiceWebhookAnswersTwiMLAndRefusesForgedSignatures() async throws {
        var config = Self.config(token: "secret-token")
        config.http.publicURL = "https://voice.example.com"
        let server = VoiceBridgeServer(config: config, store: try CallStore(path: config.database.path), logger: Logger(label: "test"))
        let app = Application(router: server.router())
        let form = "CallSid=CA9&From=%2B15550001111&To=%2B15550002222"
        let parameters = [("CallSid", "CA9"), ("From", "+15550001111"), ("To", "+15550002222")]
        let good = TwilioSignature.compute(url: "https://voice.example.com/twilio/voice", parameters: parameters, token: "secret-token")
        try await app.test(.router) { client in
            try await client.execute(uri: "/twilio/voice", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                     body: ByteBuffer(string: form)) { response in
                #expect(response.status == .forbidden, "a missing signature is refused")
            }
            try await client.execute(uri: "/twilio/voice", method: .post, headers: [.contentType: "application/x-www-form-urlencoded", .init("X-Twilio-Signature")!: "Zm9yZ2Vk"],
                                     body: ByteBuffer(string: form)) { response in
                #expect(response.status == .forbidden, "a forged signature is refused")
            }
            try await client.execute(uri: "/twilio/voice", method: .post, headers: [.contentType: "application/x-www-form-urlencoded", .init("X-Twilio-Signature")!: good],
                                     body: ByteBuffer(string: form)) { response in
                #expect(response.status == .ok)
                let twiml = String(buffer: response.body)
                #expect(twiml.contains(#"<Connect><Stream url="wss://voice.example.com/twilio/stream">"#))
                #expect(twiml.contains(#"<Parameter name="from" value="+15550001111"/>"#) && twiml.contains(#"<Parameter name="call_sid" value="CA9"/>"#))
            }
        }
    }

    @Test func signatureMatchesTheDocumentedAlgorithm() {
        // HMAC-SHA1 over URL + sorted name+value pairs, base64; the expected value was computed with
        // Python's hmac module: base64(hmac.new(b't', b'https://example.com/aa1b2', sha1)).
        let sig = TwilioSignature.compute(url: "https://example.com/a", parameters: [("b", "2"), ("a", "1")], token: "t")
        #expect(sig == "YFflbboDUfEmSPXfaNKdT9vLXbk=", "params sorted and appended as name+value")
        #expect(TwilioSignature.isValid(TwilioSignature.compute(url: "https://example.com:443/x", token: "t"), url: "wss://example.com/x", token: "t"))
        #expect(!TwilioSignature.isValid("AAAA", url: "https://example.com/x", token: "t"))
    }
}
