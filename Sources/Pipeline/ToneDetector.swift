import Foundation

/// A tone heard in the caller's audio.
public enum ToneEvent: Sendable, Equatable {
    /// A DTMF key, from tones in the audio (trunks that do not send RFC 4733 events).
    case dtmf(digit: Character)
    /// A steady single tone (an answering machine's beep): reported once it has lasted 150 ms.
    case beep(frequency: Int, milliseconds: Int)
}

/// Finds DTMF digits and answering-machine beeps in 8 kHz audio, 20 ms at a time, with the
/// Goertzel algorithm: the power at a handful of chosen frequencies, a few multiply-adds a
/// sample each, instead of a whole spectrum.
///
/// - DTMF: one row tone (697–941 Hz) and one column tone (1209–1633 Hz) that together hold most
///   of the frame's energy, each far above the other tones of its group, their levels within
///   the twist limits, on two frames in a row (40 ms, the shortest key press ITU-T Q.24 allows).
///   A digit is reported once per press.
/// - Beep: a single tone between 400 and 2000 Hz holding most of the energy (its frequency from
///   interpolated zero crossings, its share from a Goertzel filter at that frequency), steady
///   within 3 % for 150 ms.
///
/// Speech has its energy spread over many harmonics that glide, noise over the whole band: neither
/// puts nearly all of a frame into one or two exact frequencies for 40 ms (tested with speech
/// fixtures and telephone-band noise).
public struct ToneDetector: Sendable {
    static let rows: [Double] = [697, 770, 852, 941]
    static let columns: [Double] = [1209, 1336, 1477, 1633]
    static let keys: [[Character]] = [["1", "2", "3", "A"], ["4", "5", "6", "B"], ["7", "8", "9", "C"], ["*", "0", "#", "D"]]
    static let sampleRate = 8000.0
    /// Frames quieter than this mean square (≈ −40 dBFS) are not looked at.
    static let minimumMeanSquare = 32768.0 * 32768.0 * 1e-4
    /// Share of the frame's energy the two DTMF tones must hold together.
    static let dtmfShare = 0.8
    /// Share of the frame's energy a beep's tone must hold.
    static let beepShare = 0.8
    static let beepMilliseconds = 150

    /// Goertzel coefficients 2·cos(2πf/fs): the four rows, then the four columns.
    private let coefficients: InlineArray<8, Double> = {
        var c = InlineArray<8, Double>(repeating: 0)
        for (k, f) in (rows + columns).enumerated() { c[k] = 2 * cos(2 * Double.pi * f / sampleRate) }
        return c
    }()

    private var candidate: Character?
    private var candidateFrames = 0
    private var reported: Character?
    private var beepFrequency = 0.0
    private var beepMilliseconds = 0
    private var beepReported = false

    public init() {}

    /// The tones this frame completes (usually none).
    public mutating func process(_ samples: [Int16], emit: (ToneEvent) -> Void) {
        let milliseconds = samples.count * 1000 / Int(Self.sampleRate)
        var energy = 0.0
        for s in samples { let x = Double(s); energy += x * x }
        guard samples.count >= 80, energy / Double(samples.count) >= Self.minimumMeanSquare else {
            reset()
            return
        }
        let digit = dtmfDigit(samples, energy: energy)
        if let digit, digit == candidate {
            candidateFrames += 1
        } else {
            candidate = digit
            candidateFrames = digit == nil ? 0 : 1
            if digit == nil { reported = nil }
        }
        if let digit, candidateFrames >= 2, reported != digit {
            reported = digit
            emit(.dtmf(digit: digit))
        }
        trackBeep(samples, energy: energy, milliseconds: milliseconds, emit: emit)
    }

    private mutating func reset() {
        candidate = nil
        candidateFrames = 0
        reported = nil
        beepMilliseconds = 0
        beepReported = false
    }

    /// Power at a frequency (Goertzel), scaled so a pure sine gives the frame's whole energy.
    @inline(__always)
    static func share(of samples: [Int16], coefficient: Double, energy: Double) -> Double {
        var s1 = 0.0, s2 = 0.0
        for x in samples {
            let s0 = Double(x) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
        return 2 * power / (Double(samples.count) * energy)
    }

    private func dtmfDigit(_ samples: [Int16], energy: Double) -> Character? {
        // All eight filters in one pass over the samples, in fixed-size storage (no allocation).
        var s1 = InlineArray<8, Double>(repeating: 0), s2 = s1
        let c = coefficients
        for x in samples {
            let v = Double(x)
            for k in 0..<8 {
                let s0 = v + c[k] * s1[k] - s2[k]
                s2[k] = s1[k]
                s1[k] = s0
            }
        }
        let scale = 2 / (Double(samples.count) * energy)
        var shares = InlineArray<8, Double>(repeating: 0)
        for k in 0..<8 {
            let power: Double = s1[k] * s1[k] + s2[k] * s2[k] - c[k] * s1[k] * s2[k]
            shares[k] = power * scale
        }
        var row = 0, column = 4
        for k in 1..<4 where shares[k] > shares[row] { row = k }
        for k in 5..<8 where shares[k] > shares[column] { column = k }
        let (r, k) = (shares[row], shares[column])
        guard r + k >= Self.dtmfShare,
              // Twist: the column tone may be up to 8 dB above the row tone, or 4 dB below it.
              k <= r * 6.3, r <= k * 2.5 else { return nil }
        // Every other tone of each group at least 10 dB down.
        for j in 0..<8 where j != row && j != column {
            if shares[j] * 10 >= (j < 4 ? r : k) { return nil }
        }
        return Self.keys[row][column - 4]
    }

    private mutating func trackBeep(_ samples: [Int16], energy: Double, milliseconds: Int, emit: (ToneEvent) -> Void) {
        guard let frequency = Self.zeroCrossingFrequency(samples), (400...2000).contains(frequency),
              Self.share(of: samples, coefficient: 2 * cos(2 * Double.pi * frequency / Self.sampleRate), energy: energy) >= Self.beepShare
        else {
            beepMilliseconds = 0
            beepReported = false
            return
        }
        if beepMilliseconds > 0, abs(frequency - beepFrequency) <= beepFrequency * 0.03 {
            beepMilliseconds += milliseconds
        } else {
            beepMilliseconds = milliseconds
            beepReported = false
        }
        beepFrequency = frequency
        if !beepReported, beepMilliseconds >= Self.beepMilliseconds {
            beepReported = true
            emit(.beep(frequency: Int(frequency.rounded()), milliseconds: beepMilliseconds))
        }
    }

    /// The frequency of a tone from the positions of its first and last upward zero crossings,
    /// interpolated between samples; nil with fewer than three crossings.
    static func zeroCrossingFrequency(_ samples: [Int16]) -> Double? {
        var first = -1.0, last = -1.0, count = 0
        var previous = samples[0]
        for i in 1..<samples.count {
            let current = samples[i]
            if previous < 0, current >= 0 {
                let at = Double(i - 1) + Double(-Int(previous)) / Double(Int(current) - Int(previous))
                if first < 0 { first = at }
                last = at
                count += 1
            }
            previous = current
        }
        guard count >= 3, last > first else { return nil }
        return Double(count - 1) * sampleRate / (last - first)
    }
}

/// Runs the tone detector on each caller frame; what it finds rides on the frame.
public struct ToneDetectorStage: PipelineStage {
    private var detector = ToneDetector()

    public init() {}

    public mutating func process(_ frame: InboundFrame, emit: (InboundFrame) -> Void) {
        var tones: [ToneEvent] = []
        detector.process(frame.audio.samples) { tones.append($0) }
        guard !tones.isEmpty else { return emit(frame) }
        var frame = frame
        frame.tones = tones
        emit(frame)
    }
}
