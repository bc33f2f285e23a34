import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import Pipeline
import Synchronization
import Testing
import TestSupport
@testable import Bridge

/// VoiceBridge as a SIP edge: baresip calls in, the call is carried over a real WebSocket to a
/// media-stream endpoint (a Twilio-dialect server written here, parsing JSON itself), and that
/// endpoint's reply reaches baresip's ear.
@Suite(.serialized, .enabled(if: Baresip.isInstalled)) struct MediaStreamRelayTests {
    final class Endpoint: Sendable {
        let texts = Mutex<[String]>([])
        let markEchoed = Mutex(false)
        var received: [[String: Any]] {
            texts.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        var mediaCount: Int { texts.withLock { $0.filter { $0.contains(#""event":"media""#) }.count } }

        var inboundAudio: [UInt8] {
            received.filter { $0["event"] as? String == "media" }.flatMap { message -> [UInt8] in
                let payload = (message["media"] as? [String: Any])?["payload"] as? String ?? ""
                return [UInt8](Data(base64Encoded: payload) ?? Data())
            }
        }
    }

    @Test func aSIPCallIsCarriedOverAWebSocketBothWays() async throws {
        let endpoint = Endpoint()
        let reply = try WAVFile.read(Fixtures.audio("en_no_change.ulaw.wav")).data
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.ws("/twilio/stream") { inbound, outbound, _ in
            var sentReply = false
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message,
                      let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { continue }
                endpoint.texts.withLock { $0.append(text) }
                let event = object["event"] as? String
                if event == "mark", (object["mark"] as? [String: Any])?["name"] as? String == "reply-done" {
                    endpoint.markEchoed.withLock { $0 = true }
                    return   // closing the stream ends the call
                }
                if event == "media", endpoint.mediaCount == 60, !sentReply, let sid = object["streamSid"] as? String {
                    sentReply = true
                    for offset in stride(from: 0, to: reply.count, by: 1600) {   // 200 ms per message, faster than real time
                        let chunk = Data(reply[offset..<min(offset + 1600, reply.count)]).base64EncodedString()
                        try await outbound.write(.text(#"{"event":"media","streamSid":"\#(sid)","media":{"payload":"\#(chunk)"}}"#))
                    }
                    try await outbound.write(.text(#"{"event":"mark","streamSid":"\#(sid)","mark":{"name":"reply-done"}}"#))
                }
            }
        }
        let (port, ports) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: Router(), server: .http1WebSocketUpgrade(webSocketRouter: router),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { ports.yield($0.localAddress?.port ?? 0) })
        let server = Task { try await app.runService() }
        defer { server.cancel() }
        var portIterator = port.makeAsyncIterator()
        let wsPort = try #require(await portIterator.next())

        let microphone = try Baresip.padded(Fixtures.audio("en_yes_attend.wav"), before: 0.3, after: 4)
        let scheduler = PacerScheduler<[UInt8]>()
        let (counters, phone) = try await SIPInboundCallTests.withUserAgent(rtpBase: 34000) { ua, sipPort in
            let ticking = Task { await scheduler.run(clock: ContinuousClock()) }
            defer { ticking.cancel() }
            let phone = try Baresip(microphone: microphone, dial: "sip:0212345678@127.0.0.1:\(sipPort)", seconds: 12, rtpPorts: 34200...34220)
            var incoming = ua.incomingCalls.makeAsyncIterator()
            guard let call = await incoming.next() else { return (MediaStreamRelay.Counters(), phone) }
            let leg = try SIPCallLeg(call: call, scheduler: scheduler)
            let counters = try await MediaStreamRelay.run(leg: leg, url: "ws://127.0.0.1:\(wsPort)/twilio/stream", logger: Logger(label: "relay"))
            try await Task.sleep(for: .milliseconds(300))
            await phone.stop()
            return (counters, phone)
        }

        let events = endpoint.received.compactMap { $0["event"] as? String }
        #expect(events.first == "connected" && events.dropFirst().first == "start", "\(events.prefix(3)) — \(phone.log.suffix(600))")
        let start = endpoint.received.first { $0["event"] as? String == "start" }?["start"] as? [String: Any]
        let parameters = start?["customParameters"] as? [String: String]
        #expect(parameters?["direction"] == "inbound" && parameters?["to"] == "0212345678")
        #expect(endpoint.markEchoed.withLock { $0 }, "the mark came back after the reply played")
        #expect(counters.received >= 2 && counters.malformed == 0)
        // The caller's speech arrived at the endpoint.
        let fixture = try WAVFile.read(Fixtures.audio("en_yes_attend.wav")).samples
        let heard = G711.decode(endpoint.inboundAudio, law: .muLaw)
        #expect(bestCorrelation(fixture, heard, maxLag: 6000).value > 0.9)
        // The endpoint's reply reached the caller's ear.
        let recording = try #require(phone.decodedRecording())
        let ear = try WAVFile.read(recording).samples
        let replyPCM = G711.decode(reply, law: .muLaw)
        let onset = ear.firstIndex { abs(Int($0)) > 2000 } ?? 0
        let correlation = bestCorrelation(replyPCM, Array(ear.dropFirst(max(0, onset - 2000))), maxLag: 4000)
        #expect(correlation.value > 0.9, "baresip heard the endpoint's reply: \(correlation)")
    }
}
