import Pipeline

/// The agent's current utterance as the simulated callee heard it (8 kHz), from just before its
/// speech began: what the callee transcribes to know whether it is being asked again, read back
/// to, or asked something new.
struct AgentSpeech {
    /// 300 ms kept before the speech start, as the recognizer wants the onset whole.
    static let preRoll = 2_400
    /// The last 15 s are enough: read-backs and re-asks are short, and say what they are at their ends.
    static let limit = 120_000

    private var samples: [Int16] = []
    private var started = false

    mutating func append(_ frame: [Int16], speechStarted: Bool) {
        if speechStarted, !started {
            started = true
            samples = Array(samples.suffix(Self.preRoll))
        }
        samples += frame
        let keep = started ? Self.limit : Self.preRoll
        if samples.count > keep { samples.removeFirst(samples.count - keep) }
    }

    /// The utterance at 16 kHz (what the recognizer takes), without all but `keptSilence` of the
    /// `endSilence` (8 kHz samples) that told the callee it was over — silence the recognizer
    /// would only spend time on; the buffer starts over.
    mutating func take(endSilence: Int = 0) -> [Int16] {
        defer { samples = []; started = false }
        guard started, let upsampler = try? Resampler(from: 8000, to: 16_000) else { return [] }
        let spoken = samples.dropLast(max(0, min(samples.count, endSilence - Self.keptSilence)))
        return upsampler.process(Array(spoken)) + upsampler.flush()
    }

    /// 200 ms of the silence after the speech stay: the last word's tail is not cut.
    static let keptSilence = 1_600
}
