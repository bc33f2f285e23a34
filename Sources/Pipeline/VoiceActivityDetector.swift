import Foundation

/// Per-frame speech decision with hysteresis, made for 8 kHz telephone audio.
///
/// A frame counts as speech-like when it is loud enough *and* its lag-1 autocorrelation is high:
/// voiced speech carries most of its energy below 1 kHz, so neighbouring samples are strongly
/// correlated, while stationary wideband noise (hiss, line noise) is not. That one feature costs
/// two multiply-adds per sample and rejects the white noise that energy-only detectors (and
/// webrtcvad) mistake for speech. Hysteresis turns frame decisions into speech segments: onset
/// after `onsetMilliseconds` of speech-like frames, offset after `offsetMilliseconds` without.
///
/// With a Silero model (`vad: neural`) a loud frame is speech-like when the network's speech
/// probability is at least 0.5 (0.35 once in speech, as Silero's own post-processing does):
/// tonal and musical sounds correlate like voiced speech, and only a learned detector tells them apart.
public struct VoiceActivityDetector: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var onsetMilliseconds = 40
        public var offsetMilliseconds = 200
        /// Frames quieter than this (RMS, dB below full scale) are never speech.
        public var energyThresholdDBFS: Double = -45
        /// Lag-1 normalised autocorrelation a frame needs to count as speech-like.
        public var correlationThreshold: Double = 0.3
        /// Voices behind the caller held below speech (`BackgroundSpeechFloor`); nil: no such rule.
        public var background: BackgroundSpeechFloor.Settings?

        public init(onsetMilliseconds: Int = 40, offsetMilliseconds: Int = 200) {
            self.onsetMilliseconds = onsetMilliseconds
            self.offsetMilliseconds = offsetMilliseconds
        }
    }

    public enum Event: Sendable, Equatable {
        case speechStarted
        case speechEnded
    }

    public struct Decision: Sendable, Equatable {
        /// The hysteresis state after this frame.
        public var isSpeech: Bool
        /// The raw, per-frame classification.
        public var frameIsSpeechLike: Bool
        public var event: Event?
        /// How long the current speech segment has lasted (0 when not in speech).
        public var speechMilliseconds: Int
    }

    public let configuration: Configuration
    /// `energyThresholdDBFS` as a mean square of 16-bit samples, so frames need no logarithm.
    private let meanSquareThreshold: Double
    private var inSpeech = false
    private var speechLikeRun = 0
    private var quietRun = 0
    private var segmentMilliseconds = 0
    private var neural: SileroVoiceClassifier?
    private var background: BackgroundSpeechFloor?

    public init(configuration: Configuration = Configuration(), neural: SileroModel? = nil) {
        self.configuration = configuration
        self.meanSquareThreshold = 32768.0 * 32768.0 * pow(10, configuration.energyThresholdDBFS / 10)
        self.neural = neural.map(SileroVoiceClassifier.init(model:))
        background = configuration.background.map(BackgroundSpeechFloor.init(settings:))
    }

    public var isSpeech: Bool { inSpeech }

    public mutating func process(_ frame: AudioFrame) -> Decision {
        var speechLike: Bool
        let meanSquare = frame.samples.meanSquare
        if neural != nil, frame.sampleRate == 8000 {   // Silero is run at the phone's 8 kHz
            let probability = neural!.process(frame.samples)
            speechLike = meanSquare > meanSquareThreshold && probability >= (inSpeech ? 0.35 : 0.5)
        } else {
            speechLike = Self.isSpeechLike(frame.samples, meanSquareThreshold: meanSquareThreshold, correlationThreshold: configuration.correlationThreshold)
        }
        if background?.standsOut(meanSquare: meanSquare, speechLike: speechLike, inSpeech: inSpeech) == false { speechLike = false }
        let milliseconds = max(1, Int(frame.durationMilliseconds.rounded()))
        var event: Event?
        if speechLike {
            speechLikeRun += milliseconds
            quietRun = 0
        } else {
            quietRun += milliseconds
            if !inSpeech { speechLikeRun = 0 }
        }
        if !inSpeech, speechLikeRun >= configuration.onsetMilliseconds {
            inSpeech = true
            segmentMilliseconds = speechLikeRun - milliseconds
            event = .speechStarted
        } else if inSpeech, quietRun >= configuration.offsetMilliseconds {
            inSpeech = false
            speechLikeRun = 0
            segmentMilliseconds = 0
            event = .speechEnded
        }
        if inSpeech { segmentMilliseconds += milliseconds }
        return Decision(isSpeech: inSpeech, frameIsSpeechLike: speechLike, event: event, speechMilliseconds: segmentMilliseconds)
    }

    public mutating func reset() {
        inSpeech = false
        speechLikeRun = 0
        quietRun = 0
        segmentMilliseconds = 0
    }

    static func isSpeechLike(_ samples: [Int16], meanSquareThreshold: Double, correlationThreshold: Double) -> Bool {
        guard samples.count > 1 else { return false }
        var energy: Int64 = 0
        var lagProduct: Int64 = 0
        samples.withUnsafeBufferPointer { s in
            var previous = Int64(s[0])
            energy = previous * previous
            for i in 1..<s.count {
                let current = Int64(s[i])
                energy &+= current * current
                lagProduct &+= current * previous
                previous = current
            }
        }
        guard Double(energy) / Double(samples.count) > meanSquareThreshold else { return false }
        return Double(lagProduct) > correlationThreshold * Double(energy)
    }
}
