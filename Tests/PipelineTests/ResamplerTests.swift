import Foundation
import Testing
@testable import Pipeline

@Suite struct ResamplerTests {
    static let conversions: [(Int, Int)] = [(8000, 16000), (16000, 8000), (8000, 24000), (24000, 8000), (22050, 8000)]

    static func sine(frequency: Double, rate: Int, seconds: Double, amplitude: Double = 10000) -> [Int16] {
        (0..<Int(Double(rate) * seconds)).map { Int16((amplitude * sin(2 * .pi * frequency * Double($0) / Double(rate))).rounded()) }
    }

    static func rms(_ x: ArraySlice<Int16>) -> Double {
        (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
    }

    /// Frequency from the mean period between upward zero crossings (linearly interpolated).
    static func frequency(_ x: ArraySlice<Int16>, rate: Int) -> Double {
        var crossings: [Double] = []
        var i = x.startIndex + 1
        while i < x.endIndex {
            let a = Double(x[i - 1]), b = Double(x[i])
            if a < 0, b >= 0 { crossings.append(Double(i - 1) + a / (a - b)) }
            i += 1
        }
        let periods = Double(crossings.count - 1)
        return Double(rate) * periods / (crossings.last! - crossings.first!)
    }

    /// Chunked in 20 ms pieces as the pipeline feeds it, then flushed.
    static func streamed(_ input: [Int16], _ resampler: Resampler) -> [Int16] {
        let chunk = AudioFrame.samplesPerFrame(sampleRate: resampler.inputRate == 22050 ? 22050 : resampler.inputRate)
        var output: [Int16] = []
        for start in stride(from: 0, to: input.count, by: max(chunk, 1)) {
            output += resampler.process(Array(input[start..<min(start + chunk, input.count)]))
        }
        return output + resampler.flush()
    }

    @Test(arguments: conversions)
    func aSineKeepsItsFrequencyAndLevel(from: Int, to: Int) throws {
        let input = Self.sine(frequency: 1000, rate: from, seconds: 1)
        let output = Self.streamed(input, try Resampler(from: from, to: to))
        // Judge the steady state: skip 50 ms at each end where the filter fills and drains.
        let margin = to / 20
        let steady = output[margin..<(output.count - margin)]
        let f = Self.frequency(steady, rate: to)
        #expect(abs(f - 1000) < 0.5, "frequency \(f) Hz")
        let gain = 20 * log10(Self.rms(steady) / Self.rms(input[(from / 20)..<(input.count - from / 20)]))
        #expect(abs(gain) < 0.5, "level changed by \(gain) dB")
    }

    @Test(arguments: conversions)
    func totalLengthIsInputTimesRatioWithinOneFrame(from: Int, to: Int) throws {
        let input = Self.sine(frequency: 440, rate: from, seconds: 2.37)
        let output = Self.streamed(input, try Resampler(from: from, to: to))
        let expected = Double(input.count) * Double(to) / Double(from)
        #expect(abs(Double(output.count) - expected) <= Double(AudioFrame.samplesPerFrame(sampleRate: to)), "\(output.count) vs \(expected)")
    }

    @Test(arguments: conversions)
    func chunkedOutputEqualsOneShotOutput(from: Int, to: Int) throws {
        let input = Self.sine(frequency: 700, rate: from, seconds: 1.5) .enumerated().map { i, s in s &+ Int16(truncatingIfNeeded: (i * 7919) % 601 - 300) }
        let oneShot = try Resampler(from: from, to: to)
        let whole = oneShot.process(input) + oneShot.flush()
        let chunked = Self.streamed(input, try Resampler(from: from, to: to))
        #expect(whole == chunked, "no discontinuity at chunk boundaries")
        // Irregular chunk sizes too.
        let irregular = try Resampler(from: from, to: to)
        var out: [Int16] = []
        var start = 0, size = 1
        while start < input.count {
            out += irregular.process(Array(input[start..<min(start + size, input.count)]))
            start += size; size = size * 3 % 997 + 1
        }
        out += irregular.flush()
        #expect(out == whole)
    }

    @Test func afterFlushTheResamplerStartsAFreshStream() throws {
        let r = try Resampler(from: 8000, to: 16000)
        let input = Self.sine(frequency: 500, rate: 8000, seconds: 0.2)
        let first = r.process(input) + r.flush()
        let second = r.process(input) + r.flush()
        #expect(first == second)
    }

    /// The latency budget. soxr aligns its output (no group-delay offset) by holding back the
    /// start of a stream and then works in DFT blocks. Measured here: the voice quality starts
    /// within 2 chunks (40 ms) and never holds more than 30 ms of input after that.
    @Test(arguments: conversions)
    func voiceQualityStartsWithinTwoChunksThenHoldsUnderThirtyMilliseconds(from: Int, to: Int) throws {
        let r = try Resampler(from: from, to: to, quality: .voice)
        let frame = Self.sine(frequency: 500, rate: from, seconds: 0.02)
        var chunks = 0
        var produced = 0
        while produced == 0 && chunks < 10 { produced = r.process(frame).count; chunks += 1 }
        #expect(chunks <= 2, "first output after \(chunks) chunks")
        var inputSeconds = Double(chunks) * 0.02
        var outputSeconds = Double(produced) / Double(to)
        for _ in 0..<50 {
            outputSeconds += Double(r.process(frame).count) / Double(to)
            inputSeconds += 0.02
            #expect(inputSeconds - outputSeconds <= 0.030, "holding \((inputSeconds - outputSeconds) * 1000) ms")
        }
    }
}
