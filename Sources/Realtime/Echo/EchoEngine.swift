import Dialogue
import Pipeline
import Synchronization

/// No AI: each thing the caller says comes back once they stop — through the whole pipeline
/// (decode, resample, VAD, barge-in, encode, pacing). For benchmarks, diagnostics and operators
/// checking a trunk.
///
/// Why after, not during: an echo played while the caller is still talking *is* agent audio
/// over caller speech, so barge-in would cut every echo off after 200 ms. Repeating each
/// utterance when the VAD ends it keeps barge-in meaningful: talk over the playback and it stops.
public final class EchoEngine: ConversationEngine {
    public let inputFormat: EngineAudioFormat
    public let outputFormat: EngineAudioFormat
    public let events = BoundedQueue<EngineEvent>(capacity: 64, policy: .suspendProducer)
    private let state = Mutex(Utterance())
    /// The longest utterance kept before it is played anyway (memory stays bounded).
    private let maxSamples: Int

    struct Utterance {
        var number = 0
        var speaking = false
        var samples: [Int16] = []
        /// The frames just before the VAD's onset decision, so the first syllable is not cut.
        var preRoll: [[Int16]] = []
    }

    public init(sampleRate: Int = 16_000, maxUtteranceSeconds: Int = 30) {
        inputFormat = .pcm16(sampleRate: sampleRate)
        outputFormat = .pcm16(sampleRate: sampleRate)
        maxSamples = sampleRate * maxUtteranceSeconds
    }

    public func start() async throws {}

    public func send(samples: [Int16], speech: SpeechActivity) async {
        guard let ready = state.withLock({ take(samples, speech, &$0) }) else { return }
        await events.emit(.audio(item: ready.item, samples: ready.samples))
        if ready.done { await events.emit(.audioDone(item: ready.item)) }
    }

    /// Without waiting whenever the event queue has room for an utterance's two events.
    public func sendNow(speech: SpeechActivity, samples: () -> [Int16]) -> Bool {
        state.withLock { u in
            // Only a frame during an utterance can complete one; then two events must fit.
            if speech != .silence, events.count > events.capacity - 2 { return false }
            guard let ready = take(samples(), speech, &u) else { return true }
            events.trySend(.audio(item: ready.item, samples: ready.samples))
            if ready.done { events.trySend(.audioDone(item: ready.item)) }
            return true
        }
    }

    /// Adds a frame to the utterance; returns it when the frame completed it (or it grew too long).
    private func take(_ samples: [Int16], _ speech: SpeechActivity, _ u: inout Utterance) -> (item: String, samples: [Int16], done: Bool)? {
        switch speech {
        case .silence:
            u.preRoll.append(samples)
            if u.preRoll.count > 2 { u.preRoll.removeFirst() }
            return nil
        case .started:
            u.number += 1
            u.speaking = true
            u.samples = u.preRoll.flatMap { $0 } + samples
            u.preRoll.removeAll()
        case .speech, .ended:
            guard u.speaking else { return nil }
            u.samples += samples
        }
        let item = "echo-\(u.number)"
        if speech == .ended {
            u.speaking = false
            defer { u.samples = [] }
            return (item, u.samples, true)
        }
        if u.samples.count >= maxSamples {
            defer { u.samples = [] }
            return (item, u.samples, false)
        }
        return nil
    }

    public func interrupt(item: String, playedMilliseconds: Int) async {}

    public func stop() async -> TaskTracker {
        events.finish()
        return TaskTracker(questions: [])
    }
}
