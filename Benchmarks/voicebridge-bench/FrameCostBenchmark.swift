import Foundation
import Pipeline

/// Per-frame cost of the two directions of a call's audio path, measured in one thread.
enum FrameCostBenchmark {
    static let frames = 50_000   // 1000 s of audio

    struct Result {
        var inboundMicroseconds: Double
        var outboundMicroseconds: Double
        var resamplerThroughput: [(name: String, samplesPerSecond: Double)]
    }

    static func speechLike(rate: Int, frame: Int) -> [Int16] {
        let n = AudioFrame.samplesPerFrame(sampleRate: rate)
        return (0..<n).map { i in
            let t = Double(frame * n + i) / Double(rate)
            return Int16(6000 * sin(2 * .pi * 180 * t) + 2500 * sin(2 * .pi * 1100 * t) + 800 * sin(2 * .pi * 2500 * t))
        }
    }

    static func run() throws -> Result {
        let clock = ContinuousClock()
        // Inputs prepared outside the timed loops.
        let ulawPackets = (0..<50).map { G711.encode(speechLike(rate: 8000, frame: $0), law: .muLaw) }
        let tts24k = (0..<50).map { speechLike(rate: 24000, frame: $0) }

        var decode = G711DecodeStage(law: .muLaw)
        var upsample = try ResampleStage(from: 8000, to: 16000)
        var vad = VADStage()
        var sink = 0
        let inbound = clock.measure {
            for n in 0..<frames {
                for frame in decode.process(ulawPackets[n % 50]) {
                    for wide in upsample.process(frame) { sink &+= vad.process(wide).count }
                }
            }
        }
        var downsample = try ResampleStage(from: 24000, to: 8000)
        let encode = G711EncodeStage(law: .muLaw)
        let outbound = clock.measure {
            for n in 0..<frames {
                for frame in downsample.process(AudioFrame(samples: tts24k[n % 50], sampleRate: 24000)) {
                    sink &+= encode.process(frame)[0].count
                }
            }
        }
        precondition(sink > 0)

        var throughput: [(String, Double)] = []
        for (name, from, to) in [("8k→16k", 8000, 16000), ("16k→8k", 16000, 8000), ("8k→24k", 8000, 24000), ("24k→8k", 24000, 8000), ("22.05k→8k", 22050, 8000)] {
            let resampler = try Resampler(from: from, to: to)
            let chunk = [Int16](repeating: 0, count: from / 50).enumerated().map { Int16(truncatingIfNeeded: $0.offset * 37) }
            let chunks = 20_000
            let elapsed = clock.measure { for _ in 0..<chunks { sink &+= resampler.process(chunk).count } }
            throughput.append((name, Double(chunks * chunk.count) / elapsed.totalSeconds))
        }
        return Result(inboundMicroseconds: inbound.totalSeconds * 1e6 / Double(frames),
                      outboundMicroseconds: outbound.totalSeconds * 1e6 / Double(frames),
                      resamplerThroughput: throughput)
    }
}
