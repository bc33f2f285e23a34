import Foundation
import Testing
import TestSupport
@testable import Realtime

/// Speech over the realtime agent, judged by its words, against the fake Realtime server: the
/// script plays the server and, where the session would, marks an overlap (`callerSpeaksOverAgent`)
/// and cuts the agent on an interruption verdict.
@Suite(.serialized) struct RealtimeOverlapTests {
    @Test func backchannelsPlayOnWordsCutAndAnUnheardSoundResumes() async throws {
        let server = FakeRealtimeServer(key: "test-key", model: "gpt-realtime")
        let shared = Locked<OpenAIRealtimeEngine?>(nil)
        let checks = Locked<[String: String]>([:])
        let verdicts = Locked<[OverlapVerdict]>([])
        try await server.run(script: { c in
            let update = try await c.next("session.update")
            let input = ((update["session"] as? [String: Any])?["audio"] as? [String: Any])?["input"] as? [String: Any]
            let vad = input?["turn_detection"] as? [String: Any] ?? [:]
            let flag = { (key: String) in (vad[key] as? Bool).map { "\($0)" } ?? "-" }
            checks.withLock { $0["vad"] = "create=\(flag("create_response")) interrupt=\(flag("interrupt_response"))" }
            _ = try await c.next("response.create")   // the greeting
            let engine = try #require(shared.value)
            try await c.send(["type": "response.created", "response": ["id": "resp_1", "status": "in_progress"]])
            for n in 0..<25 {
                try await c.send(["type": "response.output_audio.delta", "item_id": "item_a1", "delta": Data(repeating: UInt8(n), count: 160).base64EncodedString()])
            }
            // 1. "Mm-hmm." over the agent, our VAD first: no reply asked for, the item deleted, nothing cut.
            engine.callerSpeaksOverAgent()
            try await c.send(["type": "input_audio_buffer.speech_started", "item_id": "item_u1", "audio_start_ms": 900])
            try await c.send(["type": "input_audio_buffer.committed", "item_id": "item_u1"])
            try await Task.sleep(for: .milliseconds(300))
            checks.withLock { $0["replies after backchannel commit"] = "\(c.count("response.create"))" }
            try await c.send(["type": "conversation.item.input_audio_transcription.completed", "item_id": "item_u1", "transcript": "Mm-hmm."])
            let deleted = try await c.next("conversation.item.delete")
            checks.withLock { $0["deleted"] = deleted["item_id"] as? String; $0["cut after backchannel"] = "\(c.count("response.cancel") + c.count("conversation.item.truncate"))" }
            // 2. Words over the agent, the server VAD first: the session cuts (cancel, truncate), then a reply.
            try await c.send(["type": "input_audio_buffer.speech_started", "item_id": "item_u2", "audio_start_ms": 2000])
            engine.callerSpeaksOverAgent()
            try await c.send(["type": "input_audio_buffer.committed", "item_id": "item_u2"])
            try await c.send(["type": "conversation.item.input_audio_transcription.completed", "item_id": "item_u2", "transcript": "Wait, I have a question."])
            _ = try await c.next("response.cancel")
            let truncate = try await c.next("conversation.item.truncate")
            _ = try await c.next("response.create")
            checks.withLock { $0["truncate"] = "\(truncate["item_id"] ?? "")@\(truncate["audio_end_ms"] ?? "")"; $0["replies after words"] = "\(c.count("response.create"))" }
            try await c.send(["type": "response.done", "response": ["id": "resp_1", "status": "cancelled", "output": []]])
            // 3. A turn while the agent is silent: answered at its commit, before its words are known.
            try await c.send(["type": "input_audio_buffer.speech_started", "item_id": "item_u3", "audio_start_ms": 5000])
            try await c.send(["type": "input_audio_buffer.committed", "item_id": "item_u3"])
            _ = try await c.next("response.create")
            checks.withLock { $0["replies after a plain turn"] = "\(c.count("response.create"))"; $0["cancels"] = "\(c.count("response.cancel"))" }
            // 4. A sound over the agent that the server VAD never takes for speech: no words, after 1 s.
            engine.callerSpeaksOverAgent()
            await engine.send(muLaw: [UInt8](repeating: 0xFF, count: 160), speech: .ended)
            try await Task.sleep(for: .milliseconds(1500))
            try await c.send(OpenAIRealtimeEngineTests.functionCallDone("end_call", callID: "call_1", arguments: "{}"))
            try await Task.sleep(for: .milliseconds(300))
        }) { port in
            let engine = OpenAIRealtimeEngineTests.engine(port: port)
            shared.withLock { $0 = engine }
            #expect(engine.judgeOverlaps { verdict in
                verdicts.withLock { $0.append(verdict) }
                if verdict == .interruption { await engine.interrupt(item: "item_a1", playedMilliseconds: 300) }   // as the session does
            })
            let lines = Locked<[String]>([])
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                group.addTask {
                    while !Task.isCancelled {
                        await engine.send(muLaw: [UInt8](repeating: 0xFF, count: 160), speech: .silence)
                        try await Task.sleep(for: .milliseconds(20))
                    }
                }
                try await withTimeout(.seconds(20)) {
                    while let event = await engine.nextEvent() {
                        if case .transcript(let speaker, let text, _) = event { lines.withLock { $0.append("\(speaker.rawValue): \(text)") } }
                        if case .endCall = event { return }
                    }
                }
                _ = await engine.stop()
                group.cancelAll()
            }
            #expect(lines.value == ["customer: Wait, I have a question."], "a backchannel is not a line of the conversation: \(lines.value)")
        }
        let c = checks.value
        #expect(c["vad"] == "create=false interrupt=false", "the server VAD neither answers nor cuts by itself: \(c["vad"] ?? "-")")
        #expect(c["replies after backchannel commit"] == "1" && c["deleted"] == "item_u1" && c["cut after backchannel"] == "0", "\(c)")
        #expect(c["truncate"] == "item_a1@300" && c["replies after words"] == "2", "\(c)")
        #expect(c["replies after a plain turn"] == "3" && c["cancels"] == "1", "no cancel once the response was done: \(c)")
        #expect(verdicts.value == [.backchannel("Mm-hmm."), .interruption, .noWords], "\(verdicts.value)")
    }
}
