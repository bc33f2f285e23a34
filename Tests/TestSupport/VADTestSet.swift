import Foundation
import Pipeline

/// A labelled set of 8 kHz telephone audio that is harder than `vad-mix`: the English speech
/// fixtures over the noises of real lines — mains hum and its harmonics (50 and 60 Hz), music on
/// hold, babble, street noise, DTMF tones, pink noise — at 0, 10 and 20 dB SNR, the noises
/// alone (for false onsets), and soft speech over comfort noise (which must not be missed).
/// Everything is synthesized from a fixed seed, so every run scores the same audio.
public struct VADTestSet: Sendable {
    public struct Clip: Sendable {
        public var name: String
        public var noise: String
        /// nil for noise alone and for soft speech.
        public var snrDB: Double?
        public var samples: [Int16]
        /// The speech alone (silence elsewhere): what `samples` is before the noise.
        public var clean: [Int16]
        /// Where speech is, in samples: from a fixture's first voiced frame to its last.
        public var speech: [Range<Int>]
    }

    public static let sampleRate = 8000
    /// The English speech fixtures the set is built from.
    public static let speechFixtures = ["en_greeting.wav", "en_yes_attend.wav", "en_no_change.wav", "en_refuse.wav", "en_unclear.wav", "en_thanks.wav"]
    public static let noises = [LineNoise.hum50, .hum60, .musicOnHold, .babble, .street, .dtmf, .pink].map(\.rawValue)
    public static let snrs: [Double] = [0, 10, 20]

    public var mixed: [Clip] = []
    public var noiseOnly: [Clip] = []
    public var soft: [Clip] = []

    /// The set built from `speechFixtures`.
    public static func fromFixtures() throws -> VADTestSet {
        VADTestSet(speech: try speechFixtures.map { try WAVFile.read(Fixtures.audio($0)).samples })
    }

    /// `fromFixtures()`, built once per test process and off the cooperative pool: its mixtures
    /// take seconds in a debug build, the suites that score on it share one copy, and the shared
    /// pass's waiting tests need both of the pool's threads (a sipp call beside such work once met
    /// sipp's own timeout).
    public static func shared() async throws -> VADTestSet { try await offThePool { try builtOnce.get() } }
    private static let builtOnce = Result { try fromFixtures() }

    /// `speech` are the clean fixtures (8 kHz); the first two of each clip are placed 2 s and
    /// 1.5 s apart in the noise.
    public init(speech: [[Int16]]) {
        precondition(speech.count >= 2, "needs at least two speech fixtures")
        var random = SeededRandom(seed: 20_261_122)
        for (n, noise) in Self.noises.enumerated() {
            for (s, snr) in Self.snrs.enumerated() {
                let first = speech[(n + s) % speech.count], second = speech[(n + s + 1) % speech.count]
                let gap = [Int16](repeating: 0, count: Self.sampleRate * 3 / 2), lead = [Int16](repeating: 0, count: Self.sampleRate * 2)
                let clean = lead + first + gap + second + lead
                let speechLabels = [Self.voiced(first, offset: lead.count), Self.voiced(second, offset: lead.count + first.count + gap.count)].compactMap { $0 }
                let noiseSamples = Self.noise(noise, count: clean.count, others: speech, random: &random)
                let speechPower = Self.power(clean, in: speechLabels)
                let gain = (speechPower / max(1e-9, Self.power(noiseSamples, in: [0..<noiseSamples.count])) / pow(10, snr / 10)).squareRoot()
                let samples = zip(clean, noiseSamples).map { Int16(clamping: Int((Double($0) + Double($1) * gain).rounded())) }
                mixed.append(Clip(name: "\(noise) \(Int(snr)) dB", noise: noise, snrDB: snr, samples: samples, clean: clean, speech: speechLabels))
            }
            // 20 s of the noise alone, as loud as in the 10 dB mixture of average speech (-20 dBFS).
            let alone = Self.noise(noise, count: Self.sampleRate * 20, others: speech, random: &random)
            noiseOnly.append(Clip(name: "\(noise) alone", noise: noise, snrDB: nil, samples: Self.scaled(alone, toDBFS: -30), clean: [], speech: []))
        }
        // Soft or breathy speech: -38 dBFS over comfort noise at -65 dBFS.
        for (i, fixture) in speech.enumerated() {
            let lead = [Int16](repeating: 0, count: Self.sampleRate)
            let quiet = Self.scaled(lead + fixture + lead, toDBFS: -38, measuredIn: Self.voiced(fixture, offset: lead.count).map { [$0] } ?? [])
            let comfort = Self.scaled(Self.noise("white", count: quiet.count, others: [], random: &random), toDBFS: -65)
            soft.append(Clip(name: "soft speech \(i + 1)", noise: "comfort", snrDB: nil, samples: zip(quiet, comfort).map { Int16(clamping: Int($0) + Int($1)) },
                             clean: quiet, speech: [Self.voiced(fixture, offset: lead.count)].compactMap { $0 }))
        }
    }

    // MARK: Labels and levels

    /// From the first to the last 20 ms frame louder than -40 dBFS.
    public static func voiced(_ samples: [Int16], offset: Int) -> Range<Int>? {
        let frames = stride(from: 0, to: samples.count - 159, by: 160).filter { power(samples, in: [$0..<($0 + 160)]) > pow(10, -40 / 10) * 32768 * 32768 }
        guard let first = frames.first, let last = frames.last else { return nil }
        return (offset + first)..<(offset + last + 160)
    }

    /// Mean square over `ranges`.
    static func power(_ samples: [Int16], in ranges: [Range<Int>]) -> Double {
        var sum = 0.0, count = 0
        for range in ranges { for i in range where i < samples.count { sum += Double(samples[i]) * Double(samples[i]); count += 1 } }
        return count == 0 ? 0 : sum / Double(count)
    }

    /// The SNR of a mixture, measured back from its parts (for the set's own test).
    public static func measuredSNR(clean: [Int16], mixture: [Int16], speech: [Range<Int>]) -> Double {
        let noise = zip(mixture, clean).map { Int16(clamping: Int($0) - Int($1)) }
        return 10 * log10(power(clean, in: speech) / power(noise, in: [0..<noise.count]))
    }

    static func scaled(_ samples: [Int16], toDBFS level: Double, measuredIn ranges: [Range<Int>]? = nil) -> [Int16] {
        let current = power(samples, in: ranges ?? [0..<samples.count])
        let gain = (32768 * 32768 * pow(10, level / 10) / max(1e-9, current)).squareRoot()
        return samples.map { Int16(clamping: Int((Double($0) * gain).rounded())) }
    }

    // MARK: Noises

    /// `kind`'s samples (a `LineNoise`), babble made of `others`.
    static func noise(_ kind: String, count: Int, others: [[Int16]], random: inout SeededRandom) -> [Int16] {
        (LineNoise(rawValue: kind) ?? .white).samples(count: count, voices: others, random: &random)
    }
}

extension VADTestSet {
    /// How a voice detector did on clips: frame accuracy (a short grace after each label start
    /// and end is not counted — the onset needs a few frames, the offset a hangover), false onsets
    /// per minute of non-speech, onset delay, and segments never detected.
    public struct Score: Sendable {
        public var frames = 0
        public var correctFrames = 0
        public var nonSpeechSeconds = 0.0
        public var falseOnsets = 0
        public var segments = 0
        public var missedSegments = 0
        public var onsetDelaysMilliseconds: [Double] = []

        public var accuracy: Double { frames == 0 ? 0 : Double(correctFrames) / Double(frames) }
        public var falseOnsetsPerMinute: Double { nonSpeechSeconds == 0 ? 0 : Double(falseOnsets) / (nonSpeechSeconds / 60) }
        public var medianOnsetDelayMilliseconds: Double {
            let sorted = onsetDelaysMilliseconds.sorted()
            return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        }
    }

    /// A fresh caller-side detector (energy, or Silero with `neural`) as `score` takes it.
    public static func detector(neural: SileroModel? = nil, configuration: VoiceActivityDetector.Configuration = .init()) -> ([Int16]) -> (isSpeech: Bool, started: Bool) {
        var vad = VoiceActivityDetector(configuration: configuration, neural: neural)
        return { samples in
            let decision = vad.process(AudioFrame(samples: samples, sampleRate: sampleRate))
            return (decision.isSpeech, decision.event == .speechStarted)
        }
    }

    /// One detector per clip from `makeDetector` (given the clip, so a test can build an oracle); it takes 20 ms frames (160 samples) and says
    /// whether it is in speech now and whether speech started with this frame.
    public static func score(_ clips: [Clip], graceMilliseconds: (onset: Int, offset: Int) = (100, 300),
                             makeDetector: (Clip) -> ([Int16]) -> (isSpeech: Bool, started: Bool)) -> Score {
        var score = Score()
        let frame = 160, onsetGrace = graceMilliseconds.onset * 8, offsetGrace = graceMilliseconds.offset * 8
        for clip in clips {
            let detect = makeDetector(clip)
            var segmentDetected = Array(repeating: false, count: clip.speech.count)
            for start in stride(from: 0, to: clip.samples.count - frame + 1, by: frame) {
                let (isSpeech, started) = detect(Array(clip.samples[start..<(start + frame)]))
                let middle = start + frame / 2
                let inside = clip.speech.firstIndex { $0.contains(middle) }
                let graced = clip.speech.contains { (($0.lowerBound - onsetGrace)..<($0.lowerBound + onsetGrace)).contains(middle)
                    || ($0.upperBound..<($0.upperBound + offsetGrace)).contains(middle) }
                if !graced {
                    score.frames += 1
                    if isSpeech == (inside != nil) { score.correctFrames += 1 }
                }
                if inside == nil, !graced { score.nonSpeechSeconds += Double(frame) / Double(sampleRate) }
                // A start (or being in speech already) near a segment's start detects it.
                if let index = clip.speech.firstIndex(where: { ($0.lowerBound - onsetGrace)..<$0.upperBound ~= middle }), !segmentDetected[index], isSpeech {
                    segmentDetected[index] = true
                    score.onsetDelaysMilliseconds.append(Double(max(0, start + frame - clip.speech[index].lowerBound)) / 8)
                } else if started, inside == nil, !graced {
                    score.falseOnsets += 1
                }
            }
            score.segments += clip.speech.count
            score.missedSegments += segmentDetected.filter { !$0 }.count
        }
        return score
    }
}
