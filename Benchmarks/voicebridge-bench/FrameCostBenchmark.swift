import Calls
import Foundation
import Pipeline

/// Per-frame cost of the two sides of a call's media path, measured in one thread through the
/// declaration every call runs (`CallPipeline`), with its meters giving the cost of each stage.
enum FrameCostBenchmark {
    static let frames = 50_000   // 1000 s of audio
    /// Noise suppression costs about a hundred times the rest: 100 s of audio is enough to time it.
    static let suppressedFrames = 5_000

    struct Result {
        var inboundMicroseconds: Double
        /// The same with `engine.echo_cancellation` (the far end fed as the pacer feeds it).
        var inboundCancellingMicroseconds: Double
        /// The same with `engine.noise_suppression` (DeepFilterNet3), over `suppressedFrames`; nil
        /// when `make deps` did not install it.
        var inboundSuppressingMicroseconds: Double?
        var outboundMicroseconds: Double
        /// Each stage's mean time per timed frame, from the pipeline's own meters.
        var stages: [StageMeter.Snapshot]
        /// The tone detector alone: speech-like audio, and a DTMF key held down.
        var toneMicroseconds: (speech: Double, tone: Double)
        var resamplerThroughput: [(name: String, samplesPerSecond: Double)]
    }

    static func speechLike(rate: Int, frame: Int) -> [Int16] {
        let n = AudioFrame.samplesPerFrame(sampleRate: rate)
        return (0..<n).map { i in
            let t = Double(frame * n + i) / Double(rate)
            return Int16(6000 * sin(2 * .pi * 180 * t) + 2500 * sin(2 * .pi * 1100 * t) + 800 * sin(2 * .pi * 2500 * t))
        }
    }

    static func run(deps: String) async throws -> Result {
        let clock = ContinuousClock()
        // Inputs prepared outside the timed loops.
        let ulawPackets = (0..<50).map { LegFrame(payload: G711.encode(speechLike(rate: 8000, frame: $0), law: .muLaw)) }
        let tts24k = (0..<50).map { speechLike(rate: 24000, frame: $0) }
        let meters = PipelineMeters()
        let playback = PlaybackTracker()

        // Caller side as a 16 kHz engine (the local engine) gets it, no recorder.
        var caller = try CallPipeline.callerSide(engineInput: .pcm16(sampleRate: 16000), bargeIn: BargeInController(), recorder: nil, playback: playback, meters: meters)
        var sink = 0
        let inbound = clock.measure {
            for n in 0..<frames {
                caller.process(ulawPackets[n % 50]) { sink &+= $0.engineSamples.count }
            }
        }
        // The same with echo cancellation: the agent's audio (other speech-like frames) as far end.
        let reference = EchoReference(), cancellingMeters = PipelineMeters()
        let farFrames = (0..<50).map { G711.encode(speechLike(rate: 8000, frame: $0 + 25), law: .muLaw) }
        var cancelling = try CallPipeline.callerSide(engineInput: .pcm16(sampleRate: 16000), bargeIn: BargeInController(), recorder: nil,
                                                     playback: playback, meters: cancellingMeters, echo: reference)
        let inboundCancelling = clock.measure {
            for n in 0..<frames {
                reference.sent(farFrames[n % 50])
                cancelling.process(ulawPackets[n % 50]) { sink &+= $0.engineSamples.count }
            }
        }
        // The same with noise suppression.
        var inboundSuppressing: Double?
        let suppressingMeters = PipelineMeters()
        if let suppression = try? NoiseSuppression.installed(in: deps) {
            var suppressing = try CallPipeline.callerSide(engineInput: .pcm16(sampleRate: 16000), bargeIn: BargeInController(), recorder: nil,
                                                          playback: playback, meters: suppressingMeters, denoise: try await suppression.makeSuppressor())
            let elapsed = clock.measure {
                for n in 0..<suppressedFrames { suppressing.process(ulawPackets[n % 50]) { sink &+= $0.engineSamples.count } }
            }
            inboundSuppressing = elapsed.totalSeconds * 1e6 / Double(suppressedFrames)
        }
        // Agent side from a 24 kHz TTS: decode, resample, then per frame record, playback, encode, marks.
        var agentAudio = try CallPipeline.agentAudio(engineOutput: .pcm16(sampleRate: 24000), meters: meters)
        var agentFrames = CallPipeline.agentFrames(recorder: nil, playback: playback, generation: { 0 }, meters: meters)
        var pending: [AudioFrame] = []
        let outbound = clock.measure {
            for n in 0..<frames {
                agentAudio.process(.pcm(tts24k[n % 50])) { pending.append($0) }
                for frame in pending {
                    agentFrames.process(OutboundFrame(item: "tts", audio: frame)) { if case .media(let bytes) = $0 { sink &+= bytes.count } }
                }
                pending.removeAll(keepingCapacity: true)
            }
        }

        // The tone detector on its own, on speech-like frames and on a held DTMF key.
        let dtmf = (0..<50).map { f in (0..<160).map { i in
            let t = Double(f * 160 + i) / 8000
            return Int16(8000 * sin(2 * .pi * 770 * t) + 8000 * sin(2 * .pi * 1336 * t))
        } }
        let speech8k = (0..<50).map { speechLike(rate: 8000, frame: $0) }
        func toneCost(_ input: [[Int16]]) -> Double {
            var detector = ToneDetector()
            let elapsed = clock.measure { for n in 0..<frames { detector.process(input[n % 50]) { _ in sink &+= 1 } } }
            return elapsed.totalSeconds * 1e6 / Double(frames)
        }
        let tone = (speech: toneCost(speech8k), tone: toneCost(dtmf))
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
                      inboundCancellingMicroseconds: inboundCancelling.totalSeconds * 1e6 / Double(frames),
                      inboundSuppressingMicroseconds: inboundSuppressing,
                      outboundMicroseconds: outbound.totalSeconds * 1e6 / Double(frames),
                      stages: (meters.snapshots + cancellingMeters.snapshots.filter { $0.stage == "echo" } + suppressingMeters.snapshots.filter { $0.stage == "denoise" }).filter { $0.timedFrames > 0 },
                      toneMicroseconds: tone, resamplerThroughput: throughput)
    }
}
