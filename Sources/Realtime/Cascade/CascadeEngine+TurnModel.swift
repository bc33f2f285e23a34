import Foundation
import Pipeline

/// Smart Turn on the cascade engine (`engine.turn_detection: model`): when the recognizer calls an
/// utterance over (Deepgram's `speech_final`, or the VAD's speech end before an upload), the
/// caller's last 8 s are judged. Complete: the turn is the agent's. Unfinished ("my number is zero
/// one zero, …"): the words are held, and the next utterance joins them — until the caller has
/// been silent for the ceiling, when what was held is the turn.
extension CascadeEngine {
    /// What the model judges and what it holds.
    struct HeldTurn {
        /// The caller's last `WhisperLogMel.samples / 2` (8 s) of 8 kHz μ-law.
        var audio: [UInt8] = []
        /// Words of a turn judged unfinished, waiting for the rest.
        var words: String?
        /// When the held words become the turn if the caller says nothing more.
        var deadline: ContinuousClock.Instant?
        var callerSpeaking = false
    }

    static let judgedSamples = WhisperLogMel.samples / 2   // 8 s at 8 kHz

    /// Keeps the caller's audio the model will judge (nothing without a model).
    func keepForTurnModel(_ muLaw: [UInt8], _ activity: SpeechActivity) {
        guard settings.turns.model != nil else { return }
        let rearm = state.withLock { s -> ContinuousClock.Instant? in
            s.held.audio += muLaw
            if s.held.audio.count > 2 * Self.judgedSamples { s.held.audio.removeFirst(s.held.audio.count - Self.judgedSamples) }
            switch activity {
            case .started: s.held.callerSpeaking = true; s.held.deadline = nil
            case .ended:
                s.held.callerSpeaking = false
                // Still holding after they stopped again with nothing recognized: the ceiling counts anew.
                if s.held.words != nil, s.held.deadline == nil { s.held.deadline = TaskClock().now + .milliseconds(settings.turns.ceilingMilliseconds) }
                return s.held.deadline
            case .speech, .silence: break
            }
            return nil
        }
        if let rearm { heldTurnSink.yield(rearm) }
    }

    /// The recognizer's utterance is over: the turn, or words held for the rest of it.
    func utteranceEnded(_ text: String) async {
        guard settings.turns.model != nil else { inputSink.yield(.heard(text)); return }
        let (words, audio) = state.withLock { s in
            defer { s.held.words = nil; s.held.deadline = nil }
            return ([s.held.words, text].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " "), s.held.audio.suffix(Self.judgedSamples))
        }
        guard !words.isEmpty else { return }
        if await settings.turns.completes(Self.wideband(Array(audio))) == false {
            let deadline = TaskClock().now + .milliseconds(settings.turns.ceilingMilliseconds)
            state.withLock { $0.held.words = words; $0.held.deadline = deadline }
            heldTurnSink.yield(deadline)
            return
        }
        inputSink.yield(.heard(words))
    }

    /// Owned by `start()`: a held turn whose ceiling passed with the caller silent becomes the turn.
    func releaseHeldTurns() async {
        for await deadline in heldTurns {
            try? await TaskClock().sleep(until: deadline)
            let words = state.withLock { s -> String? in
                guard s.held.deadline == deadline, !s.held.callerSpeaking, let words = s.held.words else { return nil }
                s.held.words = nil
                s.held.deadline = nil
                return words
            }
            if let words { inputSink.yield(.heard(words)) }
        }
    }

    /// 8 kHz μ-law as the model takes it: 16 kHz linear.
    static func wideband(_ muLaw: [UInt8]) -> [Int16] {
        guard let up = try? Resampler(from: 8000, to: 16_000) else { return [] }
        return up.process(G711.decode(muLaw, law: .muLaw)) + up.flush()
    }
}
