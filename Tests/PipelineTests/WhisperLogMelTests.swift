import Foundation
import Pipeline
import Testing
import TestSupport

/// Smart Turn's input features against the reference: the expected values are what Pipecat's
/// numpy implementation (`_whisper_features.py` in the `pipecat-ai` 1.14.0 wheel, the model's own
/// preprocessing) computes for the same signal — two tones and seeded noise, fading in over 1 s,
/// 3 s long, padded in front to 8 s.
@Suite struct WhisperLogMelTests {
    static func signal() -> [Float] {
        var seed: Int64 = 12345
        return (0..<48_000).map { i in
            seed = (seed * 1_103_515_245 + 12345) % 2_147_483_648
            let noise = Double(seed) / 2_147_483_648 - 0.5
            let t = Double(i) / 16_000
            let x = 0.3 * sin(2 * Double.pi * 440 * t) + 0.1 * sin(2 * Double.pi * 1234 * t) + 0.05 * noise
            return Float(x * min(1, Double(i) / 16_000))
        }
    }

    @Test func featuresMatchTheReference() {
        let features = WhisperLogMel().features(Self.signal())
        #expect(features.count == 80 * 800)
        let expected: [(mel: Int, frame: Int, value: Float)] = [
            (5, 700, 0.72073), (12, 650, 1.63938), (20, 751, 0.65567), (30, 799, 1.34466), (45, 620, 0.65575),
            (60, 710, 0.56033), (79, 760, 0.62613), (0, 100, -0.21159), (40, 480, -0.21159),
        ]
        for point in expected {
            let value = features[point.mel * 800 + point.frame]
            #expect(abs(value - point.value) < 2e-3, "mel \(point.mel), frame \(point.frame): \(value), reference \(point.value)")
        }
        let mean = features.reduce(0, +) / Float(features.count)
        #expect(abs(mean - 0.118350) < 1e-3 && abs((features.max() ?? 0) - 1.788408) < 2e-3 && abs((features.min() ?? 0) - (-0.211592)) < 2e-3,
                "mean \(mean), max \(features.max() ?? 0), min \(features.min() ?? 0)")
    }

    /// The frames inside the silence padded in front of a short turn are computed once: the
    /// features are exactly those of the same audio given whole, the silence in it.
    @Test func aShortTurnsFeaturesAreThoseOfItsAudioPaddedByHand() {
        let mel = WhisperLogMel()
        for audio in [Self.signal(), Array(Self.signal().suffix(8_000))] {   // 3 s; half a second
            let whole = mel.features([Float](repeating: 0, count: WhisperLogMel.samples - audio.count) + audio)
            let differing = zip(mel.features(audio), whole).filter { $0 != $1 }.count
            #expect(differing == 0, "\(differing) of \(whole.count) features differ for \(audio.count) samples")
        }
    }
}
