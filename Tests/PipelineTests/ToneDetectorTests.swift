import Foundation
import Testing
import TestSupport
@testable import Pipeline

@Suite struct ToneDetectorTests {
    static let keys: [Character: (Double, Double)] = [
        "1": (697, 1209), "2": (697, 1336), "3": (697, 1477), "A": (697, 1633),
        "4": (770, 1209), "5": (770, 1336), "6": (770, 1477), "B": (770, 1633),
        "7": (852, 1209), "8": (852, 1336), "9": (852, 1477), "C": (852, 1633),
        "*": (941, 1209), "0": (941, 1336), "#": (941, 1477), "D": (941, 1633),
    ]

    static func tone(_ frequencies: [Double], milliseconds: Int, amplitude: Double = 7000, phase: Double = 0.3) -> [Double] {
        (0..<(milliseconds * 8)).map { i in
            frequencies.reduce(0) { $0 + amplitude * sin(2 * .pi * $1 * Double(i) / 8000 + phase) }
        }
    }

    static func silence(milliseconds: Int) -> [Double] { [Double](repeating: 0, count: milliseconds * 8) }

    /// Telephone-band noise: white noise through a 300–3400 Hz band-pass (two one-pole sections).
    static func bandNoise(milliseconds: Int, rms: Double, seed: UInt64 = 7) -> [Double] {
        var generator = SeededRandom(seed: seed)
        var low = 0.0, high = 0.0, previous = 0.0
        let aLow = exp(-2 * Double.pi * 3400 / 8000), aHigh = exp(-2 * Double.pi * 300 / 8000)
        var raw = (0..<(milliseconds * 8)).map { _ -> Double in
            let white = Double.random(in: -1...1, using: &generator)
            low = (1 - aLow) * white + aLow * low          // low-pass 3.4 kHz
            high = aHigh * (high + low - previous)          // high-pass 300 Hz
            previous = low
            return high
        }
        let current = (raw.reduce(0) { $0 + $1 * $1 } / Double(raw.count)).squareRoot()
        raw = raw.map { $0 * rms / current }
        return raw
    }

    static func run(_ signal: [Double]) -> [ToneEvent] {
        var detector = ToneDetector()
        var events: [ToneEvent] = []
        let samples = signal.map { Int16(clamping: Int($0.rounded())) }
        for start in stride(from: 0, to: samples.count - 159, by: 160) {
            detector.process(Array(samples[start..<start + 160])) { events.append($0) }
        }
        return events
    }

    @Test func everyKeyIsReportedOncePerPress() {
        let sequence: [Character] = ["1", "2", "3", "A", "4", "5", "6", "B", "7", "8", "9", "C", "*", "0", "#", "D", "5", "5"]
        var signal: [Double] = []
        for (n, key) in sequence.enumerated() {
            let (row, column) = Self.keys[key]!
            // Presses of 60–140 ms, gaps of 60 ms, not aligned with the 20 ms frames.
            signal += Self.tone([row, column], milliseconds: 60 + (n % 5) * 20 + 7, phase: Double(n))
            signal += Self.silence(milliseconds: 63)
        }
        #expect(Self.run(signal) == sequence.map { .dtmf(digit: $0) })
    }

    @Test func keysAreHeardThroughNoiseAndTwist() {
        // 20 dB above telephone-band noise, the column tone 4 dB louder than the row (normal twist).
        let press = zip(Self.tone([852], milliseconds: 100, amplitude: 5000), Self.tone([1477], milliseconds: 100, amplitude: 7900)).map { $0 + $1 }
        let noise = Self.bandNoise(milliseconds: 100, rms: 470)
        #expect(Self.run(zip(press, noise).map { $0 + $1 }) == [.dtmf(digit: "9")])
    }

    @Test func aToneTooShortForAKeyIsNotOne() {
        // 25 ms: shorter than the 40 ms a key press lasts at least.
        let signal = Self.silence(milliseconds: 15) + Self.tone([770, 1336], milliseconds: 25) + Self.silence(milliseconds: 100)
        #expect(Self.run(signal).isEmpty)
    }

    @Test func aBeepOf150MillisecondsOrMoreIsReportedOnce() {
        for frequency in [440.0, 1000, 1400, 1950] {
            let signal = Self.silence(milliseconds: 100) + Self.tone([frequency], milliseconds: 400) + Self.silence(milliseconds: 100)
            let events = Self.run(signal)
            #expect(events.count == 1, "\(frequency) Hz: \(events)")
            if case .beep(let heard, let ms)? = events.first {
                #expect(abs(Double(heard) - frequency) <= frequency * 0.01, "\(frequency) Hz heard as \(heard)")
                #expect(ms >= 150 && ms <= 180)
            } else {
                Issue.record("\(frequency) Hz: no beep")
            }
        }
        // 100 ms is too short; 3 kHz is outside the band answering machines beep in.
        #expect(Self.run(Self.tone([1000], milliseconds: 100) + Self.silence(milliseconds: 60)).isEmpty)
        #expect(Self.run(Self.tone([3000], milliseconds: 400)).isEmpty)
    }

    @Test func speechAndNoiseTriggerNothing() throws {
        for name in ["en_greeting.wav", "en_yes_attend.wav", "en_no_change.wav", "en_refuse.wav", "en_thanks.wav", "en_unclear.wav",
                     "ko_yes_attend.wav", "ko_no_change.wav", "vad-mix.wav"] {
            let samples = try WAVFile.read(Fixtures.audio(name)).samples
            let events = Self.run(samples.map(Double.init))
            #expect(events.isEmpty, "\(name): \(events)")
        }
        for rms in [100.0, 1000, 8000] {
            #expect(Self.run(Self.bandNoise(milliseconds: 10_000, rms: rms, seed: UInt64(rms))).isEmpty, "telephone-band noise at RMS \(rms)")
        }
    }

    @Test func theStageRidesTheEventsOnTheFrame() {
        var stage = ToneDetectorStage()
        let samples = Self.tone([941, 1336], milliseconds: 60).map { Int16($0) }
        var tones: [ToneEvent] = []
        for start in stride(from: 0, to: samples.count, by: 160) {
            let frame = InboundFrame(payload: [], audio: AudioFrame(samples: Array(samples[start..<start + 160]), sampleRate: 8000))
            stage.process(frame) { tones += $0.tones }
        }
        #expect(tones == [.dtmf(digit: "0")])
    }
}
