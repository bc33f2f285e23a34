import Foundation
import Realtime
import Testing
import TestSupport
@testable import Calls

/// A call whose realtime engine loses its socket twice (PROTOCOLS.md §3: one reconnect with the
/// conversation replayed, then give up): the caller hears a goodbye synthesized on this machine,
/// and the call ends `failed` with `engine_disconnected`.
@Suite(.serialized) struct EngineLossCallTests {
    @Test func aRealtimeSocketLostTwiceEndsTheCallWithALocalGoodbye() async throws {
        let server = FakeRealtimeServer(key: "test-key", model: "gpt-realtime")
        try await server.run(script: { c in
            _ = try await c.next("session.update")
            guard c.index == 0 else { return }   // the reconnected session drops at once
            try await c.send(["type": "session.created", "session": ["id": "sess_1"]])
            _ = try await c.next("response.create")
            for _ in 0..<50 {   // a one-second greeting
                try await c.send(["type": "response.output_audio.delta", "item_id": "item_a1", "response_id": "resp_1",
                                  "delta": Data(repeating: 0x20, count: 160).base64EncodedString()])
            }
            try await c.send(["type": "response.output_audio_transcript.done", "item_id": "item_a1", "transcript": "Hello, this is ABC Company. Can you attend?"])
            try await c.send(["type": "response.done", "response": ["id": "resp_1", "status": "completed", "output": [] as [Any]]])
            try await Task.sleep(for: .seconds(2))
        }) { port in
            var settings = OpenAIRealtimeEngine.Settings(apiKey: "test-key")
            settings.baseURL = "http://127.0.0.1:\(port)/v1"
            settings.model = "gpt-realtime"
            let fixed = settings
            try await CallHarness.run(engines: { OpenAIRealtimeEngine(context: $0, settings: fixed) }) { manager, store, _ in
                let created = try await manager.create(CallHarness.seedRequest(answers: ["<silence>"]))
                let call = try await CallHarness.waitFor(store, created.outboundId) { $0.state.isTerminal }
                #expect(call.state == .failed && call.failureReason == OpenAIRealtimeEngine.disconnected, "\(call.state) \(call.failureReason ?? "")")
                let lines = try await store.transcript(callID: call.outboundId).map(\.entry)
                let goodbye = LocalVoice.apology + " Thank you for your time. Have a nice day."
                #expect(lines.map(\.text) == ["Hello, this is ABC Company. Can you attend?", goodbye], "\(lines.map(\.text))")
                // Heard, not only written: the agent's side of the recording carries speech from the goodbye line on.
                let recording = try #require(try await store.recordingPath(callID: call.outboundId))
                let agent = try WAVFile.read(URL(fileURLWithPath: recording)).channel(1)
                let from = Int((lines.last?.timestamp ?? 0) * 8000)
                let loudFrames = stride(from: from, to: agent.count - 160, by: 160).filter { start in
                    agent[start..<(start + 160)].map { abs(Int($0)) }.max() ?? 0 > 800
                }.count
                #expect(loudFrames * 20 >= 2000, "at least two seconds of goodbye in the recording (\(loudFrames * 20) ms)")
            }
        }
        #expect(server.upgrades.value.count == 2, "one reconnect, then the call gives up: \(server.upgrades.value)")
    }
}
