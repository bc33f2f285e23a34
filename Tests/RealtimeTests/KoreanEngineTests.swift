import Dialogue
import Foundation
import Testing
import TestSupport
@testable import Realtime

/// A Korean call on each provider engine, against fake servers in the documented wire formats: the
/// requests carry the language (the realtime session's transcription, Deepgram's `language`, the
/// transcription upload's `language`), the model is told to speak Korean and greets in Korean, and
/// the caller's Korean answer reaches the task state as said.
@Suite(.serialized) struct KoreanEngineTests {
    static let context = ConversationContext(purpose: "내일 오후 두 시 회의", questions: ["내일 회의에 참석하실 수 있나요?"], displayName: "ABC 회사",
                                             language: "ko", greetingTemplate: DialoguePhrases.korean.greeting, closingTemplate: DialoguePhrases.korean.closing)
    static let answer = "네, 참석할게요."
    static let taskState = #"{"question_id":"q1","status":"answered","answer_text":"네, 참석할게요.","answer_summary":"yes","confidence":0.9}"#

    @Test func theRealtimeEngineHoldsAKoreanCall() async throws {
        let server = FakeRealtimeServer(key: "test-key", model: "gpt-realtime")
        let checks = Locked<[String: String]>([:])
        try await server.run(script: { c in
            let session = try await c.next("session.update")["session"] as? [String: Any] ?? [:]
            let input = (session["audio"] as? [String: Any])?["input"] as? [String: Any] ?? [:]
            checks.withLock {
                $0["instructions"] = session["instructions"] as? String
                $0["language"] = (input["transcription"] as? [String: Any])?["language"] as? String
            }
            try await c.send(["type": "session.created", "session": ["id": "sess_1"]])
            _ = try await c.next("response.create")
            try await c.send(["type": "response.output_audio_transcript.done", "item_id": "item_a1", "transcript": "안녕하세요, ABC 회사의 AI 상담원입니다. 내일 회의에 참석하실 수 있나요?"])
            try await c.send(["type": "conversation.item.input_audio_transcription.completed", "item_id": "item_u1", "transcript": Self.answer])
            try await c.send(OpenAIRealtimeEngineTests.functionCallDone("update_task_state", callID: "call_1", arguments: Self.taskState))
            _ = try await c.next("conversation.item.create")
            try await c.send(OpenAIRealtimeEngineTests.functionCallDone("end_call", callID: "call_2", arguments: #"{"reason":"done"}"#))
            try await Task.sleep(for: .milliseconds(300))
        }) { port in
            var settings = OpenAIRealtimeEngine.Settings(apiKey: "test-key")
            settings.baseURL = "http://127.0.0.1:\(port)/v1"
            let engine = OpenAIRealtimeEngine(context: Self.context, settings: settings)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                try await withTimeout(.seconds(20)) {
                    while let event = await engine.nextEvent() { if case .endCall = event { break } }
                }
                let tracker = await engine.stop()
                checks.withLock { $0["answer"] = tracker.answers.first.map { "\($0.status.rawValue) \($0.answerText ?? "")" } }
                group.cancelAll()
            }
        }
        let c = checks.value
        #expect(c["language"] == "ko", "the session's transcription is told the language")
        #expect(c["instructions"]?.contains("Speak only Korean") == true && c["instructions"]?.contains("안녕하세요, ABC 회사의 AI 상담원입니다.") == true)
        #expect(c["answer"] == "answered \(Self.answer)")
    }

    /// Korean replies: a greeting with the question, then the answer recorded, then the goodbye.
    static func chat(_ n: Int) -> (chunks: [String], delay: Duration) {
        switch n {
        case 0: (FakeCascadeServers.sse([FakeCascadeServers.content("안녕하세요, ABC 회사의 AI 상담원입니다. 내일 회의에 참석하실 수 있나요?")]) + ["data: [DONE]\n\n"], .milliseconds(20))
        case 1:
            (FakeCascadeServers.sse([["index": 0, "delta": ["role": "assistant", "content": NSNull(), "tool_calls": [["index": 0, "id": "call_1", "type": "function",
                "function": ["name": "update_task_state", "arguments": taskState]]]], "finish_reason": "tool_calls"]]) + ["data: [DONE]\n\n"], .milliseconds(20))
        default:
            (FakeCascadeServers.sse([FakeCascadeServers.content("감사합니다. 좋은 하루 되세요."), ["index": 0, "delta": ["tool_calls": [["index": 0, "id": "call_2", "type": "function",
                "function": ["name": "end_call", "arguments": #"{"reason":"done"}"#]]]], "finish_reason": "tool_calls"]]) + ["data: [DONE]\n\n"], .milliseconds(20))
        }
    }

    @Test(arguments: [true, false]) func theCascadeHoldsAKoreanCall(deepgram: Bool) async throws {
        let log = FakeCascadeServers.Log()
        let answer = Locked<String?>(nil)
        let steps = [FakeCascadeServers.DeepgramStep(afterAudio: .seconds(1), [FakeCascadeServers.DeepgramStep.speechStarted,
                     FakeCascadeServers.DeepgramStep.results(Self.answer, isFinal: true, speechFinal: true)])]
        try await FakeCascadeServers.withFakeServers(log, chat: Self.chat, deepgram: steps, transcription: Self.answer) { port in
            let engine = CascadeEngine(context: Self.context, settings: CascadeEngineTests.settings(port: port, deepgram: deepgram))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(300))
                    try await FakeCascadeServers.speakOnce(before: .milliseconds(200), speech: .milliseconds(1200), after: .seconds(2),
                                                           send: { await engine.send(muLaw: $0, speech: $1) }, speechEnded: { _ in })
                }
                try await withTimeout(.seconds(20)) {
                    while let event = await engine.nextEvent() { if case .endCall = event { break } }
                }
                let tracker = await engine.stop()
                answer.withLock { $0 = tracker.answers.first.map { "\($0.status.rawValue) \($0.answerText ?? "")" } }
                group.cancelAll()
            }
        }
        #expect(log.all("stt language") == [deepgram ? "stt language deepgram=ko" : "stt language transcription=ko"])
        #expect(log.chatBodies.value.first?.contains("Speak only Korean") == true, "the model is told to speak Korean")
        #expect(log.all("speech").first == "speech pcm|안녕하세요, ABC 회사의 AI 상담원입니다.", "\(log.all("speech"))")
        #expect(log.chatBodies.value.dropFirst().first?.contains(Self.answer) == true, "the Korean answer reached the model")
        #expect(answer.value == "answered \(Self.answer)")
    }
}
