import Pipeline
import Synchronization

/// No AI: the caller's audio comes back through the whole pipeline (decode, resample, VAD,
/// barge-in, encode, pacing). For benchmarks, diagnostics and operators checking a trunk.
public final class EchoEngine: ConversationEngine {
    public let inputFormat: EngineAudioFormat
    public let outputFormat: EngineAudioFormat
    public let events = BoundedQueue<EngineEvent>(capacity: 64, policy: .suspendProducer)
    private let segment = Mutex(0)

    public init(sampleRate: Int = 16_000) {
        inputFormat = .pcm16(sampleRate: sampleRate)
        outputFormat = .pcm16(sampleRate: sampleRate)
    }

    public func start() async throws {}

    public func send(samples: [Int16], speech: SpeechActivity) async {
        // Each speech segment is one item, so barge-in accounting works as for any engine.
        let item = segment.withLock { n -> String in
            if speech == .started { n += 1 }
            return "echo-\(n)"
        }
        await events.emit(.audio(item: item, samples: samples))
    }

    public func interrupt(item: String, playedMilliseconds: Int) async {}

    public func stop() async -> TaskTracker {
        events.finish()
        return TaskTracker(questions: [])
    }
}
