import Dialogue
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Pipeline
import Testing
import TestSupport
@testable import Realtime

/// The cascade against fake servers in the documented wire formats: an SSE chat endpoint that
/// splits tool-call deltas across chunks, a speech endpoint returning raw 24 kHz PCM, a
/// Deepgram-style WebSocket, and the transcription endpoint.
@Suite(.serialized) struct CascadeEngineTests {
    typealias Log = FakeCascadeServers.Log

    static func sse(_ chunks: [[String: Any]]) -> [String] { FakeCascadeServers.sse(chunks) }

    static func content(_ text: String) -> [String: Any] { FakeCascadeServers.content(text) }

    /// The chat script, by request number: greeting (two sentences, slowly), then a tool call split
    /// across chunks plus the next question, then closing words with end_call.
    static func chatResponse(_ n: Int) -> (chunks: [String], delay: Duration) {
        switch n {
        case 0:
            return (sse([content("Hello, this is ABC Company calling about tomorrow's meeting. "), content("Can you "), content("attend?")])
                    + [": keep-alive\n\n", "data: [DONE]\n\n"], .milliseconds(400))
        case 1:
            let first: [String: Any] = ["index": 0, "delta": ["role": "assistant", "content": NSNull(),
                "tool_calls": [["index": 0, "id": "call_1", "type": "function", "function": ["name": "update_task_state", "arguments": ""]]]], "finish_reason": NSNull()]
            let part = { (s: String) -> [String: Any] in ["index": 0, "delta": ["tool_calls": [["index": 0, "function": ["arguments": s]]]], "finish_reason": NSNull()] }
            return (sse([first, part(#"{"question_id":"q1","sta"#), part(#"tus":"answered","answer_text":"Yes, I can attend.","#), part(#""answer_summary":"yes","confidence":0.9}"#),
                         ["index": 0, "delta": [:], "finish_reason": "tool_calls"]]) + ["data: [DONE]\n\n"], .milliseconds(20))
        default:
            // Words (with the [TASK_STATE] fallback inside, never spoken) and end_call together.
            let end: [String: Any] = ["index": 0, "delta": ["tool_calls": [["index": 0, "id": "call_2", "type": "function", "function": ["name": "end_call", "arguments": #"{"reason":"done"}"#]]]], "finish_reason": "tool_calls"]
            return (sse([content("Thank you. [TASK_STATE]{\"question_id\":\"q2\",\"status\":\"refused\"}[/TASK_STATE]Goodbye."), end]) + ["data: [DONE]\n\n"], .milliseconds(20))
        }
    }

    /// The same script answered by what each request carries rather than its number: the caller's
    /// words arrive while the greeting is written, but a loaded machine can deliver them after it,
    /// when the engine asks the model early for the words so far ("Yes, I can") and drops that
    /// reply once the final words differ. That request gets the answer script too, unheard.
    static func chatFollowingTheConversation(_ n: Int, _ body: String) -> (chunks: [String], delay: Duration) {
        let object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        let messages = object?["messages"] as? [[String: Any]] ?? []
        if messages.last?["role"] as? String == "tool" { return chatResponse(2) }
        let callerSpoke = messages.contains { $0["role"] as? String == "user" && ($0["content"] as? String ?? "").hasPrefix("Yes, I can") }
        return chatResponse(callerSpoke ? 1 : 0)
    }

    /// Starts `engine` and collects its events but audio until it ends the call (20 s at most), then stops it.
    static func eventsUntilEndCall(_ engine: CascadeEngine) async throws -> [EngineEvent] {
        let events = Locked<[EngineEvent]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.start() }
            try await withTimeout(.seconds(20)) {
                while let event = await engine.nextEvent() {
                    if case .audio = event { continue }
                    events.withLock { $0.append(event) }
                    if case .endCall = event { return }
                }
            }
            _ = await engine.stop()
            group.cancelAll()
        }
        return events.value
    }

    static func withFakeServers(_ log: Log, chat: @escaping @Sendable (Int) -> (chunks: [String], delay: Duration) = chatResponse,
                                _ body: @Sendable (Int) async throws -> Void) async throws {
        try await FakeCascadeServers.withFakeServers(log, chat: chat, body)
    }

    /// The caller side as the session feeds it: silent 20 ms μ-law frames, in real time.
    static func sendSilence(to engine: CascadeEngine, frames: Int) async throws {
        for _ in 0..<frames {
            await engine.send(muLaw: [UInt8](repeating: 0xFF, count: 160), speech: .silence)
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func settings(port: Int, deepgram: Bool) -> CascadeEngine.Settings {
        CascadeEngine.Settings(stt: deepgram ? .deepgram(baseURL: "ws://127.0.0.1:\(port)/v1", apiKey: "dg-key", model: "nova-3") : .openAI(model: "gpt-4o-transcribe"),
                               llmBaseURL: "http://127.0.0.1:\(port)/v1", llmAPIKey: "llm-key", llmModel: "test-model",
                               audioBaseURL: "http://127.0.0.1:\(port)/v1", audioAPIKey: "audio-key")
    }

    @Test func aConversationThroughDeepgramChatAndSpeech() async throws {
        let log = Log()
        let seen = Locked<[EngineEvent]>([])
        let usage = Locked(EngineUsage())
        let tracker = Locked<TaskTracker?>(nil)
        try await FakeCascadeServers.withFakeServers(log, answering: Self.chatFollowingTheConversation) { port in
            let engine = CascadeEngine(context: OpenAIRealtimeEngineTests.context, settings: Self.settings(port: port, deepgram: true))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                group.addTask { try await Self.sendSilence(to: engine, frames: 150) }
                try await withTimeout(.seconds(20)) { while let event = await engine.nextEvent() {
                    if case .audio(_, let samples) = event { seen.withLock { $0.append(.audio(item: "n", samples: [Int16(clamping: samples.count)])) } } else { seen.withLock { $0.append(event) } }
                    if case .endCall = event { break }
                } }
                tracker.withLock { $0 = nil }
                let final = await engine.stop()
                tracker.withLock { $0 = final }
                usage.withLock { $0 = engine.usage }
                group.cancelAll()
            }
            // `stop()` returns once CloseStream is written; give the fake server time to read it
            // before it is shut down (the expectation below still requires that it arrived).
            try? await log.wait("deepgram text", containing: "CloseStream", timeout: .seconds(5))
        }
        let events = seen.value
        let lines = events.compactMap { if case .transcript(let s, let t, _) = $0 { "\(s.rawValue): \(t)" } else { nil } }
        #expect(lines == ["ai: Hello, this is ABC Company calling about tomorrow's meeting. Can you attend?",
                          "customer: Yes, I can attend.", "ai: Thank you. Goodbye."], "\(lines)")
        #expect(events.contains(.speechStarted), "Deepgram's SpeechStarted is an early barge-in signal")
        // The turn's steps for the call's timeline, and what the call used for its cost estimate.
        let milestones = events.compactMap { if case .milestone(let m, _) = $0 { m } else { nil } }
        #expect(milestones.contains(.transcribed) && milestones.contains(.replyStarted), "\(milestones)")
        let providers = milestones.compactMap { if case .firstByte(let p, _) = $0 { p } else { nil } }
        #expect(providers.contains("llm") && providers.contains("tts"), "\(providers)")
        #expect(usage.value.sttSeconds > 0 && usage.value.ttsCharacters > 50 && usage.value.llmInputTokens > 0 && usage.value.llmOutputTokens > 0
                && usage.value.llmTokensEstimated, "\(usage.value)")
        #expect(events.last == .endCall(reason: "done", afterItem: "cascade-3"))
        #expect(tracker.value?.answers.map { "\($0.questionID)=\($0.status.rawValue)" } == ["q1=answered", "q2=refused"])
        // Speech: raw PCM asked for, one request per sentence, the first before the model finished writing.
        let speech = log.all("speech")
        #expect(speech.first == "speech pcm|Hello, this is ABC Company calling about tomorrow's meeting.", "\(speech)")
        #expect(speech.contains("speech pcm|Can you attend?") && !speech.joined().contains("TASK_STATE"))
        let bodies = log.chatBodies.value
        let greeting = try #require(bodies.firstIndex { !$0.contains("Yes, I can") })
        let firstSpeech = try #require(log.first("speech")), greetingDone = try #require(log.first("chat \(greeting) end"))
        #expect(firstSpeech < greetingDone, "the first sentence was synthesized while the model was still writing")
        let audioSamples = events.reduce(0) { if case .audio(_, let n) = $1 { $0 + Int(n[0]) } else { $0 } }
        #expect(audioSamples == "Hello, this is ABC Company calling about tomorrow's meeting.Can you attend?Thank you.Goodbye.".count * 240,
                "every PCM sample arrived, odd chunk boundaries included (\(audioSamples))")
        // Deepgram: μ-law 8 kHz with interim results, a token, and CloseStream at the end.
        #expect(log.all("deepgram auth") == ["deepgram auth=Token dg-key encoding=mulaw rate=8000 interim=true"])
        #expect(log.all("deepgram text").contains { $0.contains("CloseStream") })
        // The caller's turn asked with their words; the next request carried the tool call and its
        // result back to the model. Any other request was an early one for the words so far.
        let answer = try #require(bodies.firstIndex { $0.contains("Yes, I can attend.") })
        #expect(bodies[answer].contains("\"stream\":true") && bodies[answer].contains("update_task_state"))
        let result = try #require(bodies.firstIndex { $0.contains("tool_call_id") })
        #expect(result > answer && bodies[result].contains("\"tool_call_id\":\"call_1\""), "the tool result follows the assistant's tool call")
        let early = bodies.filter { $0.contains("Yes, I can") && !$0.contains("Yes, I can attend.") }
        #expect(bodies.count == 3 + early.count, "\(bodies.count) requests, \(early.count) early")
    }

    /// Barge-in cancels the turn in flight: the rest of the greeting is never synthesized.
    @Test func bargeInCancelsTheTurnInFlight() async throws {
        let log = Log()
        try await Self.withFakeServers(log) { port in
            let engine = CascadeEngine(context: OpenAIRealtimeEngineTests.context, settings: Self.settings(port: port, deepgram: false))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                try await withTimeout(.seconds(20)) {
                    while let event = await engine.nextEvent() {
                        if case .audio(let item, _) = event {
                            await engine.interrupt(item: item, playedMilliseconds: 100)
                            break
                        }
                    }
                }
                try await Task.sleep(for: .seconds(2))
                _ = await engine.stop()
                group.cancelAll()
            }
        }
        #expect(log.all("speech").count == 1, "only the first sentence was synthesized: \(log.all("speech"))")
    }

    /// OpenAI transcription: the utterance the local VAD delimits is uploaded as a μ-law WAV.
    @Test func openAITranscriptionUploadsEachUtterance() async throws {
        let log = Log()
        let heard = Locked<[String]>([])
        try await Self.withFakeServers(log) { port in
            let engine = CascadeEngine(context: OpenAIRealtimeEngineTests.context, settings: Self.settings(port: port, deepgram: false))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(500))
                    await engine.send(muLaw: [UInt8](repeating: 0x10, count: 160), speech: .started)
                    for _ in 0..<20 { await engine.send(muLaw: [UInt8](repeating: 0x10, count: 160), speech: .speech) }
                    await engine.send(muLaw: [UInt8](repeating: 0xFF, count: 160), speech: .ended)
                }
                try await withTimeout(.seconds(20)) {
                    while let event = await engine.nextEvent() {
                        if case .transcript(.customer, let text, _) = event { heard.withLock { $0.append(text) }; break }
                    }
                }
                _ = await engine.stop()
                group.cancelAll()
            }
        }
        #expect(heard.value == ["Yes, I can attend."])
        #expect(log.all("transcription") == ["transcription wav=true model=true"])
    }

    /// A key press is a turn of its own: the next chat request carries `[DTMF 7]` as the caller's line.
    @Test func aKeyPressReachesTheModelAsTheCallersLine() async throws {
        let log = Log()
        try await Self.withFakeServers(log) { port in
            let engine = CascadeEngine(context: OpenAIRealtimeEngineTests.context, settings: Self.settings(port: port, deepgram: false))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                group.addTask {
                    try await log.chatBodies.wait(for: "the first chat request", timeout: .seconds(20)) { !$0.isEmpty }
                    await engine.dtmf("7")
                }
                try await log.chatBodies.wait(for: "a second chat request", timeout: .seconds(20)) { $0.count >= 2 }
                _ = await engine.stop()
                group.cancelAll()
            }
        }
        let second = try #require(log.chatBodies.value.dropFirst().first)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(second.utf8)) as? [String: Any])
        let last = (body["messages"] as? [[String: Any]])?.last { $0["role"] as? String == "user" }
        #expect(last?["content"] as? String == "[DTMF 7]", "\(last ?? [:])")
    }

    /// With a transfer target the model gets `transfer_call`; its call becomes a transfer event,
    /// and a transfer that reached nobody is the tool's result in the next chat request.
    @Test func transferCallGoesToTheSessionAndItsOutcomeBackToTheModel() async throws {
        let log = Log()
        let transfer: @Sendable (Int) -> (chunks: [String], delay: Duration) = { n in
            guard n == 0 else { return Self.chatResponse(2) }
            let call: [String: Any] = ["index": 0, "delta": ["tool_calls": [["index": 0, "id": "call_5", "type": "function",
                                       "function": ["name": "transfer_call", "arguments": #"{"reason":"asked for an operator"}"#]]]], "finish_reason": "tool_calls"]
            return (Self.sse([Self.content("I will connect you now."), call]) + ["data: [DONE]\n\n"], .milliseconds(20))
        }
        let reason = Locked<String?>(nil)
        try await Self.withFakeServers(log, chat: transfer) { port in
            var context = OpenAIRealtimeEngineTests.context
            context.transferTarget = "+15550100099"
            let engine = CascadeEngine(context: context, settings: Self.settings(port: port, deepgram: false))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                try await withTimeout(.seconds(20)) {
                    while let event = await engine.nextEvent() {
                        if case .transfer(let why, _) = event {
                            reason.withLock { $0 = why }
                            await engine.transferEnded(.noAnswer)
                        }
                        if case .endCall = event { return }
                    }
                }
                _ = await engine.stop()
                group.cancelAll()
            }
        }
        #expect(reason.value == "asked for an operator")
        let bodies = log.chatBodies.value.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let tools = (bodies.first?["tools"] as? [[String: Any]])?.compactMap { ($0["function"] as? [String: Any])?["name"] as? String }
        #expect(tools == ["update_task_state", "end_call", "transfer_call", "press_keys"])
        let result = (bodies.dropFirst().first?["messages"] as? [[String: Any]])?.last
        #expect(result?["role"] as? String == "tool" && result?["tool_call_id"] as? String == "call_5"
                && result?["content"] as? String == #"{"transferred":false,"outcome":"no_answer"}"#, "\(result ?? [:])")
    }

    /// `max_turns` reached (here at the greeting, with a caller who says nothing): the closing
    /// line is synthesized and the call ends, without another round to the model.
    @Test func maxTurnsEndsTheCallWithTheClosingLine() async throws {
        let log = Log()
        let seen = Locked<[EngineEvent]>([])
        try await Self.withFakeServers(log) { port in
            var context = OpenAIRealtimeEngineTests.context
            context.maxTurns = 1
            let engine = CascadeEngine(context: context, settings: Self.settings(port: port, deepgram: false))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                group.addTask { try await Self.sendSilence(to: engine, frames: 150) }
                try await withTimeout(.seconds(20)) {
                    while let event = await engine.nextEvent() {
                        seen.withLock { $0.append(event) }
                        if case .endCall = event { break }
                    }
                }
                _ = await engine.stop()
                group.cancelAll()
            }
        }
        let events = seen.value
        guard case .endCall(let reason, _)? = events.last else { Issue.record("no end: \(events.suffix(3))"); return }
        #expect(reason == "max_turns")
        let lines = events.compactMap { if case .transcript(let s, let t, _) = $0 { "\(s.rawValue): \(t)" } else { nil } }
        #expect(lines.last == "ai: Thank you for your time. Have a nice day.", "\(lines)")
        #expect(log.all("speech").last == "speech pcm|Thank you for your time. Have a nice day.", "the closing is spoken: \(log.all("speech"))")
        #expect(log.all("chat").filter { $0.hasSuffix("start") }.count == 1, "no model round after the limit: \(log.all("chat"))")
    }

    /// Deepgram closes a stream that gets no audio for 10 s: while none flows (a peer with
    /// silence suppression sends no RTP), KeepAlive messages keep it open.
    @Test func deepgramGetsKeepAliveWhileNoAudioFlows() async throws {
        let log = Log()
        try await Self.withFakeServers(log) { port in
            let engine = CascadeEngine(context: OpenAIRealtimeEngineTests.context, settings: Self.settings(port: port, deepgram: true))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.start() }
                group.addTask { while await engine.nextEvent() != nil {} }
                try await Self.sendSilence(to: engine, frames: 10)   // 200 ms of audio, then none
                try await log.wait(for: 2, "deepgram text", containing: "KeepAlive", timeout: .seconds(20))
                let keepAlives = log.all("deepgram text").filter { $0.contains("KeepAlive") }.count
                #expect(keepAlives >= 2, "a KeepAlive every few seconds of silence: \(keepAlives)")
                _ = await engine.stop()
                group.cancelAll()
            }
        }
    }
}
