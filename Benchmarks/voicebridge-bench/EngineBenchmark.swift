import Dialogue
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import Pipeline
import Realtime
import Synchronization

/// Conversation-engine latencies, `make bench`'s `engines` suite:
/// - local: end of the caller's speech (the VAD's speech end) → first agent audio, with the
///   engine fed in real time (its end-of-turn window is counted, as a caller would feel it);
/// - realtime: an audio delta leaving a local Realtime-protocol server → the 20 ms frame queued
///   for the pacer (socket, JSON, base64, event queue and re-framing — the engine's own cost).
enum EngineBenchmark {
    struct Percentiles { var p50: Double; var p99: Double; var samples: Int }

    static func percentiles(_ values: [Double]) -> Percentiles {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return Percentiles(p50: 0, p99: 0, samples: 0) }
        let at = { (q: Double) in sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))] }
        return Percentiles(p50: at(0.5), p99: at(0.99), samples: sorted.count)
    }

    // MARK: Local

    /// What the caller side and the agent side of the local run share.
    final class LocalRun: Sendable {
        let speechEnded = Shared<ContinuousClock.Instant?>(nil)
        let latencies = Shared<[Double]>([])
        let agentTalking = Shared(false)
    }

    final class Shared<Value: Sendable>: Sendable {
        private let mutex: Mutex<Value>
        init(_ value: Value) { mutex = Mutex(value) }
        func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
        func load(ordering: AtomicLoadOrdering = .relaxed) -> Value { mutex.withLock { $0 } }
        func store(_ value: Value, ordering: AtomicStoreOrdering = .relaxed) { mutex.withLock { $0 = value } }
    }

    static func localTurnLatency(turns: Int, moonshinePath: String) async throws -> Percentiles {
        let tts = try EspeakSynthesizer(voice: "en-us")
        let stt = try MoonshineTranscriber(directory: moonshinePath)
        let questions = (1...turns).map { "Question number \($0), is that right?" }
        // The agent speaks in the default voice (Piper's); each question is new to it.
        let agentVoice = try PiperVoice.installed(in: (moonshinePath as NSString).deletingLastPathComponent)
        let engine = LocalEngine(context: ConversationContext(purpose: "a benchmark", questions: questions), tts: agentVoice, stt: stt)
        // The caller's answer, spoken by espeak and sent as a phone would: 8 kHz μ-law, then 16 kHz.
        let voice = try await tts.synthesize("Yes, that is right.")
        let down = try Resampler(from: EspeakSynthesizer.sampleRate, to: 8000)
        let answer = G711.decode(G711.encode(down.process(voice) + down.flush(), law: .muLaw), law: .muLaw)
        let run = LocalRun()
        let (speechEnded, latencies, agentTalking) = (run.speechEnded, run.latencies, run.agentTalking)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var item = ""
                while let event = await engine.nextEvent() {
                    switch event {
                    case .audio(let next, _) where next != item:
                        item = next
                        agentTalking.store(true, ordering: .relaxed)
                        if let ended = speechEnded.withLock({ s -> ContinuousClock.Instant? in defer { s = nil }; return s }) {
                            latencies.withLock { $0.append(ended.duration(to: .now).totalMilliseconds) }
                        }
                    case .audioDone:
                        agentTalking.store(false, ordering: .relaxed)
                    case .endCall:
                        return
                    default: break
                    }
                }
            }
            group.addTask { try await engine.start() }   // the greeting, then hearing and replying until cancelled
            while !agentTalking.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(5)) }   // the greeting has begun
            // The caller: silence while the agent talks (plus its playout), then the answer, in real time.
            var vad = VoiceActivityDetector()
            let up = try Resampler(from: 8000, to: MoonshineTranscriber.sampleRate)
            let start = ContinuousClock.now
            var tick = 0
            func frame(_ samples: [Int16]) async throws {
                let decision = vad.process(AudioFrame(samples: samples, sampleRate: 8000))
                let activity: SpeechActivity = switch decision.event {
                case .speechStarted?: .started
                case .speechEnded?: .ended
                case nil: decision.isSpeech ? .speech : .silence
                }
                if activity == .ended { speechEnded.withLock { $0 = .now } }
                await engine.send(samples: up.process(samples), speech: activity)
                tick += 1
                try await Task.sleep(until: start.advanced(by: .milliseconds(20 * tick)), clock: .continuous)
            }
            let silence = [Int16](repeating: 0, count: 160)
            for turn in 0..<turns {
                FileHandle.standardError.write(Data("engines: local turn \(turn + 1)/\(turns)\n".utf8))
                while agentTalking.load(ordering: .relaxed) || speechEnded.withLock({ $0 != nil }) { try await frame(silence) }
                for _ in 0..<50 { try await frame(silence) }   // the greeting or question plays out
                for offset in stride(from: 0, to: answer.count - 160, by: 160) { try await frame(Array(answer[offset..<offset + 160])) }
                for _ in 0..<60 { try await frame(silence) }
            }
            group.cancelAll()
        }
        _ = await engine.stop()
        return percentiles(latencies.withLock { $0 })
    }

    // MARK: Realtime

    static func realtimeOverhead(deltas: Int) async throws -> Percentiles {
        let sentAt = Shared<[ContinuousClock.Instant]>([])
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.ws("v1/realtime") { _, _ in .upgrade([:]) } onUpgrade: { inbound, outbound, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { for try await _ in inbound.messages(maxSize: 1 << 20) {} }   // the client's appends
                try await Task.sleep(for: .milliseconds(300))   // session.update and the greeting request go first
                let payload = Data(repeating: 0x55, count: 160).base64EncodedString()
                let start = ContinuousClock.now
                for n in 0..<deltas {
                    try await Task.sleep(until: start.advanced(by: .milliseconds(20 * n)), clock: .continuous)
                    sentAt.withLock { $0.append(.now) }
                    try await outbound.write(.text(#"{"type":"response.output_audio.delta","response_id":"r1","item_id":"item_1","output_index":0,"content_index":0,"delta":"\#(payload)"}"#))
                }
                try await group.next()
            }
        }
        let (ports, portInput) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: Router(), server: .http1WebSocketUpgrade(webSocketRouter: router),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { portInput.yield($0.localAddress?.port ?? 0) }, logger: Logger(label: "bench-realtime", factory: { _ in SwiftLogNoOpLogHandler() }))
        var queuedAt: [ContinuousClock.Instant] = []
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { return }
            var settings = OpenAIRealtimeEngine.Settings(apiKey: "bench")
            settings.baseURL = "http://127.0.0.1:\(port)/v1"
            let engine = OpenAIRealtimeEngine(context: ConversationContext(purpose: "bench", questions: ["q"]), settings: settings,
                                              logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
            group.addTask { try await engine.start() }
            // What the call session does with agent audio: μ-law → 20 ms frames → the pacer's queue.
            let pacer = Pacer<[UInt8]>(input: BoundedQueue(capacity: deltas + 10, policy: .suspendProducer))
            var chunker = FrameChunker(sampleRate: 8000)
            while queuedAt.count < deltas, let event = await engine.nextEvent() {
                guard case .audioBytes(let item, let bytes) = event else { continue }
                for frame in chunker.push(G711.decode(bytes, law: .muLaw)) {
                    _ = pacer.input.trySend(.audio(G711.encode(frame.samples, law: .muLaw), item: item))
                    queuedAt.append(.now)
                }
            }
            _ = await engine.stop()
            group.cancelAll()
        }
        let sent = sentAt.withLock { $0 }
        return percentiles(zip(sent, queuedAt).map { $0.duration(to: $1).totalMilliseconds })
    }
}
