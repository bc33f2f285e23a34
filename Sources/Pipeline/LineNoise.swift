import Foundation

/// The noises of real phone lines, synthesized at 8 kHz from a seed: what the labelled VAD set
/// mixes under speech, and what a simulated line (`LineCondition`) puts behind a caller. The same
/// seed gives the same noise on every machine and every run.
public enum LineNoise: String, Sendable, CaseIterable, Codable {
    /// Mains hum and its harmonics, the odd ones strongest (a rectifier's buzz).
    case hum50 = "hum-50Hz", hum60 = "hum-60Hz"
    /// Three-note chords struck and decaying, a new one every 400 ms.
    case musicOnHold = "music-on-hold"
    /// Six talkers at once.
    case babble
    /// Brown rumble with cars passing (slow swells) and a little hiss.
    case street
    /// Keys pressed 80 ms on, 80 ms off.
    case dtmf
    case pink, white
    /// An office behind the caller: two colleagues talking a room away (muffled), keys typed,
    /// the ventilation's low roar.
    case office
    /// A television in the room: one voice talking over a music bed.
    case television

    public static let sampleRate = 8000

    /// Whether the noise is made of voices (`voices` must then hold some speech).
    public var needsVoices: Bool { [.babble, .office, .television].contains(self) }

    /// `count` samples of the noise, peaking at 16,000. `voices` (8 kHz speech) are what babble,
    /// an office and a television say.
    public func samples(count: Int, voices: [[Int16]], random: inout SeededRandom) -> [Int16] {
        let out = shape(count: count, voices: voices, random: &random)
        let peak = out.map(abs).max() ?? 1
        return out.map { Int16(clamping: Int(($0 / max(peak, 1e-9) * 16_000).rounded())) }
    }

    private func shape(count: Int, voices: [[Int16]], random: inout SeededRandom) -> [Double] {
        let rate = Double(Self.sampleRate)
        var out = [Double](repeating: 0, count: count)
        switch self {
        case .hum50, .hum60:
            let base = self == .hum50 ? 50.0 : 60.0
            for k in 1...9 {
                let amplitude = (k % 2 == 1 ? 1.0 : 0.4) / Double(k), phase = random.unit() * 2 * .pi
                for i in 0..<count { out[i] += amplitude * sin(2 * .pi * base * Double(k) * Double(i) / rate + phase) }
            }
        case .musicOnHold:
            out = Self.chords(count: count, random: &random)
        case .babble:
            for talker in 0..<6 where !voices.isEmpty { Self.add(voices[talker % voices.count], into: &out, random: &random) }
        case .street:
            var brown = 0.0
            let period = rate * 4
            for i in 0..<count {
                brown = 0.995 * brown + random.gaussian() * 0.1
                let swell = 0.5 + 0.5 * sin(2 * .pi * Double(i) / period)
                out[i] = brown * (0.3 + swell) + random.gaussian() * 0.02
            }
        case .dtmf:
            let low = [697.0, 770, 852, 941], high = [1209.0, 1336, 1477, 1633]
            let press = Int(rate * 0.08)
            for start in stride(from: 0, to: count, by: 2 * press) {
                let f1 = low[Int(random.unit() * 4) % 4], f2 = high[Int(random.unit() * 4) % 4]
                for i in start..<min(count, start + press) {
                    let t = Double(i) / rate
                    out[i] = sin(2 * .pi * f1 * t) + sin(2 * .pi * f2 * t)
                }
            }
        case .pink:
            out = Self.pink(count: count, random: &random)
        case .white:
            for i in 0..<count { out[i] = random.gaussian() }
        case .office:
            out = Self.office(count: count, voices: voices, random: &random)
        case .television:
            // The voice in front, the music a third as loud.
            var voice = [Double](repeating: 0, count: count)
            if !voices.isEmpty { Self.add(voices[Int(random.unit() * Double(voices.count)) % voices.count], into: &voice, random: &random) }
            let music = Self.chords(count: count, random: &random)
            let (v, m) = (Self.rms(voice), Self.rms(music))
            for i in 0..<count { out[i] = voice[i] / max(v, 1e-9) + music[i] / max(m, 1e-9) / 3 }
        }
        return out
    }

    /// One voice looped from an offset of its own.
    private static func add(_ voice: [Int16], into out: inout [Double], random: inout SeededRandom) {
        guard !voice.isEmpty else { return }
        let shift = Int(random.unit() * Double(voice.count))
        for i in out.indices { out[i] += Double(voice[(i + shift) % voice.count]) / 32768 }
    }

    private static func chords(count: Int, random: inout SeededRandom) -> [Double] {
        let rate = Double(sampleRate)
        let scale = [261.6, 293.7, 329.6, 349.2, 392.0, 440.0, 493.9, 523.3]
        let noteLength = Int(rate * 0.4)
        var out = [Double](repeating: 0, count: count)
        for start in stride(from: 0, to: count, by: noteLength) {
            let root = Int(random.unit() * 5)
            for note in [scale[root], scale[root + 2], scale[(root + 4) % scale.count]] {
                for harmonic in 1...3 {
                    for i in start..<min(count, start + noteLength) {
                        let t = Double(i - start) / rate
                        out[i] += exp(-3 * t) * min(1, t * 200) / Double(harmonic) * sin(2 * .pi * note * Double(harmonic) * t)
                    }
                }
            }
        }
        return out
    }

    /// Paul Kellet's economy filter over white noise.
    private static func pink(count: Int, random: inout SeededRandom) -> [Double] {
        var b0 = 0.0, b1 = 0.0, b2 = 0.0
        return (0..<count).map { _ in
            let white = random.gaussian()
            b0 = 0.99765 * b0 + white * 0.0990460
            b1 = 0.96300 * b1 + white * 0.2965164
            b2 = 0.57000 * b2 + white * 1.0526913
            return b0 + b1 + b2 + white * 0.1848
        }
    }

    /// Two voices through a wall (a one-pole low-pass at ~500 Hz), a keystroke every 150–400 ms
    /// (a 5-ms click), and the ventilation (pink noise, low-passed): each a third of the whole.
    private static func office(count: Int, voices: [[Int16]], random: inout SeededRandom) -> [Double] {
        var talk = [Double](repeating: 0, count: count)
        for talker in 0..<2 where !voices.isEmpty { add(voices[(talker * 3) % voices.count], into: &talk, random: &random) }
        lowPass(&talk, alpha: 0.33)
        var keys = [Double](repeating: 0, count: count)
        var next = 0
        while next < count {
            for i in next..<min(count, next + 40) { keys[i] = random.gaussian() * exp(-Double(i - next) / 8) }
            next += Int(Double(sampleRate) * (0.15 + random.unit() * 0.25))
        }
        var air = pink(count: count, random: &random)
        lowPass(&air, alpha: 0.2)
        let parts = [talk, keys, air].map { ($0, max(rms($0), 1e-9)) }
        return (0..<count).map { i in parts.reduce(0) { $0 + $1.0[i] / $1.1 } }
    }

    private static func lowPass(_ samples: inout [Double], alpha: Double) {
        var y = 0.0
        for i in samples.indices {
            y += alpha * (samples[i] - y)
            samples[i] = y
        }
    }

    private static func rms(_ samples: [Double]) -> Double {
        samples.isEmpty ? 0 : (samples.reduce(0) { $0 + $1 * $1 } / Double(samples.count)).squareRoot()
    }
}
