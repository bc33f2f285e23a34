import Foundation
import Pipeline

/// A `LineCondition` made ready for a run of calls: its noise synthesized once (30 s, looped) at
/// the level the speech-to-noise ratio asks of the person's voice, and its echo's gain and delay.
/// Each call gets a line of its own (`line(seed:)`), starting the noise where its seed says.
public struct LineBed: Sendable {
    public let condition: LineCondition
    /// The noise at its final level (empty: none).
    let noise: [Int16]
    let echoGain: Double
    let echoDelaySamples: Int

    static let noiseSeconds = 30

    /// `voices` are the person's voice (8 kHz) saying what the run's calls will have it say: the
    /// speech level the ratio is measured against, and what babble, an office and a television
    /// say. Fails when there is noise and no voice to set its level by.
    public init(condition: LineCondition, voices: [[Int16]], seed: UInt64 = 20_261_202) throws {
        self.condition = condition
        echoGain = condition.echoDB.map { pow(10, $0 / 20) } ?? 0
        echoDelaySamples = condition.echoDelayMilliseconds * LineNoise.sampleRate / 1000
        guard let kind = condition.noise else {
            noise = []
            return
        }
        let speechPower = Self.voicedPower(voices)
        // The ratio is to the person's voice: without it there is no level to set the noise at.
        guard speechPower > 0 else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "a line with \(kind.rawValue) needs the person's voice, and none was given"])
        }
        var random = SeededRandom(seed: seed)
        let raw = kind.samples(count: LineNoise.sampleRate * Self.noiseSeconds, voices: voices, random: &random)
        let gain = (speechPower / max(raw.meanSquare, 1e-9) / pow(10, condition.snrDB / 10)).squareRoot()
        noise = raw.map { Int16(clamping: Int((Double($0) * gain).rounded())) }
    }

    /// One call's line; `seed` picks where in the noise it starts (the same seed, the same noise).
    public func line(seed: UInt64) -> ImpairedLine {
        ImpairedLine(bed: self, noiseStart: noise.isEmpty ? 0 : Int(seed % UInt64(noise.count)))
    }

    /// The mean square of the 20-ms frames louder than −40 dBFS: a voice's level where it speaks.
    static func voicedPower(_ voices: [[Int16]]) -> Double {
        let floor = pow(10, -40.0 / 10) * 32768 * 32768
        var sum = 0.0, count = 0
        for voice in voices {
            for start in stride(from: 0, to: voice.count - 159, by: 160) {
                let frame = voice[start..<start + 160].meanSquare
                if frame > floor { sum += frame; count += 1 }
            }
        }
        return count == 0 ? 0 : sum / Double(count)
    }
}
