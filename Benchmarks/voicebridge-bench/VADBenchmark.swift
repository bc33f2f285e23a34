import Foundation
import Pipeline
import TestSupport

/// `make bench`'s `vad` suite: the caller side's voice detector — energy, and Silero when
/// `make deps` installed it — on `VADTestSet`: speech over the noises of real lines at 0/10/20 dB
/// SNR, the noises alone, soft speech. Per noise: frame accuracy, false onsets per minute of
/// non-speech, median onset delay, segments missed; and each detector's cost per frame. Silero
/// runs again with `engine.hold_background_voices`, and on the set as `engine.noise_suppression`
/// gives it (DeepFilterNet3 first).
enum VADBenchmark {
    struct Row {
        var noise: String
        var score: VADTestSet.Score
    }

    struct Result {
        var detector: String
        var rows: [Row]
        var total: VADTestSet.Score
        var microsecondsPerFrame: Double
    }

    static func run(deps: String) async throws -> [Result] {
        let set = try VADTestSet.fromFixtures()
        var results = [try run(set, name: "energy", neural: nil)]
        do {
            let silero = try SileroModel.installed(in: deps)
            results.append(try run(set, name: "neural (Silero)", neural: silero))
            var holding = VoiceActivityDetector.Configuration()
            holding.background = BackgroundSpeechFloor.Settings()
            results.append(try run(set, name: "neural, background voices held (engine.hold_background_voices)", neural: silero, configuration: holding))
            do {
                let suppression = try NoiseSuppression.installed(in: deps)
                let started = ContinuousClock.now
                var cleaned = set
                for i in cleaned.mixed.indices { cleaned.mixed[i].samples = try await suppression.suppressed(set.mixed[i].samples) }
                let frames = set.mixed.reduce(0) { $0 + $1.samples.count / 160 }
                let suppressing = started.duration(to: .now).totalMilliseconds * 1000 / Double(max(1, frames))
                for i in cleaned.noiseOnly.indices { cleaned.noiseOnly[i].samples = try await suppression.suppressed(set.noiseOnly[i].samples) }
                let level = { (samples: [Int16]) in BenchMain.format(samples.levelDBFS, digits: 1) }
                print("each noise alone through the suppressor (dBFS, its first second left out):")
                print(BenchMain.table(["noise", "before", "after"], zip(set.noiseOnly, cleaned.noiseOnly).map { [$0.noise, level($0.samples), level(Array($1.samples.dropFirst(8000)))] }))
                for i in cleaned.soft.indices { cleaned.soft[i].samples = try await suppression.suppressed(set.soft[i].samples) }
                var result = try run(cleaned, name: "neural after noise suppression (DeepFilterNet3)", neural: silero)
                result.microsecondsPerFrame += suppressing
                results.append(result)
            } catch {
                FileHandle.standardError.write(Data("vad: noise suppression is not measured: \(error)\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("vad: the neural detector is not measured: \(error)\n".utf8))
        }
        return results
    }

    static func run(_ set: VADTestSet, name: String, neural: SileroModel?, configuration: VoiceActivityDetector.Configuration = .init()) throws -> Result {
        func detector() -> ([Int16]) -> (isSpeech: Bool, started: Bool) { VADTestSet.detector(neural: neural, configuration: configuration) }
        var rows: [Row] = []
        for noise in VADTestSet.noises {
            let clips = set.mixed.filter { $0.noise == noise } + set.noiseOnly.filter { $0.noise == noise }
            rows.append(Row(noise: noise, score: VADTestSet.score(clips) { _ in detector() }))
        }
        rows.append(Row(noise: "soft speech, comfort noise", score: VADTestSet.score(set.soft) { _ in detector() }))
        let total = VADTestSet.score(set.mixed + set.noiseOnly + set.soft) { _ in detector() }
        // Cost: the mixed clips' frames once more, timed as a whole.
        let frames = set.mixed.flatMap { clip in stride(from: 0, to: clip.samples.count - 159, by: 160).map { AudioFrame(samples: Array(clip.samples[$0..<($0 + 160)]), sampleRate: 8000) } }
        var vad = VoiceActivityDetector(configuration: configuration, neural: neural)
        var speaking = 0
        let started = ContinuousClock.now
        for frame in frames where vad.process(frame).isSpeech { speaking += 1 }
        let elapsed = started.duration(to: .now)
        FileHandle.standardError.write(Data("vad: \(name) in speech for \(speaking) of \(frames.count) timed frames\n".utf8))
        return Result(detector: name, rows: rows, total: total, microsecondsPerFrame: elapsed.totalMilliseconds * 1000 / Double(max(1, frames.count)))
    }
}
