import Dispatch
import Foundation
import Pipeline
import Synchronization

/// The embedded engine, no keys needed: Moonshine hears, the scripted dialogue decides, espeak-ng
/// speaks. English.
///
/// Caller audio arrives at 16 kHz with the pipeline's VAD decisions; an utterance is buffered
/// from speech start (with a short pre-roll) to speech end, then transcribed on a dedicated
/// thread so a 0.5 s transcription never blocks the cooperative pool that paces calls.
public final class LocalEngine: ConversationEngine {
    public let inputFormat = EngineAudioFormat.pcm16(sampleRate: MoonshineTranscriber.sampleRate)
    public let outputFormat = EngineAudioFormat.pcm16(sampleRate: EspeakSynthesizer.sampleRate)
    public let events = BoundedQueue<EngineEvent>(capacity: 32, policy: .suspendProducer)

    private let tts: EspeakSynthesizer
    private let stt: MoonshineTranscriber
    private let state: Mutex<State>
    private static let transcriptionQueue = DispatchQueue(label: "voicebridge.moonshine", qos: .userInitiated)

    /// Pre-roll kept before the VAD's onset decision (it fires after 40 ms of speech).
    static let preRollSamples = MoonshineTranscriber.sampleRate * 3 / 10
    /// An answer longer than this is cut (bounded memory).
    static let maxUtteranceSamples = MoonshineTranscriber.sampleRate * 30

    /// Silence after the VAD's speech end before the caller's turn counts as over: people pause
    /// inside an answer ("Yes, I can attend … the meeting").
    public let endOfTurnMilliseconds: Int

    private struct State {
        var dialogue: ScriptedDialogue
        var recent: [Int16] = []
        var utterance: [Int16] = []
        var listening = false
        /// Silence since the VAD said speech ended, while the turn may still continue.
        var trailingSilence: Int?
        var itemCount = 0
        var ended = false
    }

    public init(context: ConversationContext, tts: EspeakSynthesizer, stt: MoonshineTranscriber, endOfTurnMilliseconds: Int = 500) {
        self.tts = tts
        self.stt = stt
        self.endOfTurnMilliseconds = endOfTurnMilliseconds
        self.state = Mutex(State(dialogue: ScriptedDialogue(context: context)))
    }

    public func start() async throws {
        let step = state.withLock { $0.dialogue.start() }
        await say(step)
    }

    public func send(samples: [Int16], speech: SpeechActivity) async {
        let milliseconds = samples.count * 1000 / MoonshineTranscriber.sampleRate
        let finished: [Int16]? = state.withLock { s in
            guard !s.ended else { return nil }
            defer {
                s.recent += samples
                if s.recent.count > Self.preRollSamples { s.recent.removeFirst(s.recent.count - Self.preRollSamples) }
            }
            switch speech {
            case .started:
                if !s.listening { s.utterance = s.recent }   // a pause inside the turn keeps what was said
                s.listening = true
                s.trailingSilence = nil
            case .ended where s.listening:
                s.trailingSilence = 0
            case .silence where s.listening && s.trailingSilence != nil:
                s.trailingSilence! += milliseconds
            default: break
            }
            guard s.listening else { return nil }
            if s.utterance.count < Self.maxUtteranceSamples { s.utterance += samples }
            guard let silence = s.trailingSilence, silence >= endOfTurnMilliseconds else { return nil }
            s.listening = false
            s.trailingSilence = nil
            defer { s.utterance = [] }
            return s.utterance
        }
        guard let finished else { return }
        let text = await transcribe(finished)
        await events.emit(.transcript(speaker: .customer, text: text, item: nil))
        let (step, tracker) = state.withLock { s in (s.dialogue.caller(said: text), s.dialogue.tracker) }
        await events.emit(.taskState(tracker))
        await say(step)
    }

    public func interrupt(item: String, playedMilliseconds: Int) async {
        // Each utterance is synthesized whole and the session already dropped its unplayed audio;
        // the dialogue simply waits for what the caller says.
    }

    public func close(reason: String) async {
        let closing = state.withLock { s -> String? in
            guard !s.ended else { return nil }
            s.ended = true
            return s.dialogue.context.closing
        }
        guard let closing else { return }
        await say(.close(text: closing))
    }

    public func stop() async -> TaskTracker {
        let tracker = state.withLock { s -> TaskTracker in s.ended = true; return s.dialogue.tracker }
        events.finish()
        return tracker
    }

    private func say(_ step: ScriptedDialogue.Step) async {
        let (text, closing) = switch step {
        case .ask(let text, _): (text, false)
        case .close(let text): (text, true)
        }
        let item = state.withLock { s -> String in s.itemCount += 1; return "local-\(s.itemCount)" }
        await events.emit(.transcript(speaker: .ai, text: text, item: item))
        do {
            let samples = try tts.synthesize(text)
            // 200 ms chunks: small enough for the bounded queue to pace a fast synthesizer.
            for start in stride(from: 0, to: samples.count, by: EspeakSynthesizer.sampleRate / 5) {
                await events.emit(.audio(item: item, samples: Array(samples[start..<min(start + EspeakSynthesizer.sampleRate / 5, samples.count)])))
            }
        } catch {
            await events.emit(.error(message: "\(error)", fatal: false))
        }
        await events.emit(.audioDone(item: item))
        if closing {
            state.withLock { $0.ended = true }
            await events.emit(.endCall(reason: "conversation finished", afterItem: item))
        }
    }

    private func transcribe(_ samples: [Int16]) async -> String {
        await withCheckedContinuation { continuation in
            Self.transcriptionQueue.async { [stt] in
                continuation.resume(returning: (try? stt.transcribe(pcm16k: samples)) ?? "")
            }
        }
    }
}
