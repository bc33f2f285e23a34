import Foundation
import Pipeline
import TestSupport

/// `make bench`'s `vad` suite: the caller side's voice detector on `VADTestSet` — speech over
/// the noises of real lines at 0/10/20 dB SNR, the noises alone, soft speech — per noise: frame
/// accuracy, false onsets per minute of non-speech, median onset delay, segments missed.
enum VADBenchmark {
    struct Row {
        var noise: String
        var score: VADTestSet.Score
    }

    static let fixtures = ["en_greeting.wav", "en_yes_attend.wav", "en_no_change.wav", "en_refuse.wav", "en_unclear.wav", "en_thanks.wav"]

    static func run() throws -> (rows: [Row], total: VADTestSet.Score, microsecondsPerFrame: Double) {
        let speech = try fixtures.map { try WAVFile.read(Fixtures.audio($0)).samples }
        let set = VADTestSet(speech: speech)
        var rows: [Row] = []
        for noise in VADTestSet.noises {
            let clips = set.mixed.filter { $0.noise == noise } + set.noiseOnly.filter { $0.noise == noise }
            rows.append(Row(noise: noise, score: VADTestSet.score(clips) { _ in energyDetector() }))
        }
        rows.append(Row(noise: "soft speech, comfort noise", score: VADTestSet.score(set.soft) { _ in energyDetector() }))
        let total = VADTestSet.score(set.mixed + set.noiseOnly + set.soft) { _ in energyDetector() }
        // Cost: every frame of the set once more, timed as a whole.
        let frames = (set.mixed + set.noiseOnly).flatMap { clip in stride(from: 0, to: clip.samples.count - 159, by: 160).map { Array(clip.samples[$0..<($0 + 160)]) } }
        var vad = VoiceActivityDetector()
        let started = ContinuousClock.now
        var speaking = 0
        for frame in frames where vad.process(AudioFrame(samples: frame, sampleRate: 8000)).isSpeech { speaking += 1 }
        let elapsed = started.duration(to: .now)
        precondition(speaking >= 0)
        return (rows, total, elapsed.totalMilliseconds * 1000 / Double(max(1, frames.count)))
    }

    static func energyDetector() -> ([Int16]) -> (isSpeech: Bool, started: Bool) {
        var vad = VoiceActivityDetector()
        return { samples in
            let decision = vad.process(AudioFrame(samples: samples, sampleRate: 8000))
            return (decision.isSpeech, decision.event == .speechStarted)
        }
    }
}
