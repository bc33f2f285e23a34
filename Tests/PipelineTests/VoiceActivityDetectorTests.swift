import Foundation
import Testing
import TestSupport
@testable import Pipeline

@Suite struct VoiceActivityDetectorTests {
    struct Labels: Decodable {
        struct Segment: Decodable { let start_ms: Int; let end_ms: Int }
        let speech: [Segment]
        let total_ms: Int
    }

    static func mix() throws -> ([AudioFrame], Labels) {
        let wav = try WAVFile.read(Fixtures.audio("vad-mix.wav"))
        let labels = try JSONDecoder().decode(Labels.self, from: Data(contentsOf: Fixtures.audio("vad-mix.json")))
        var chunker = FrameChunker(sampleRate: wav.sampleRate)
        return (chunker.push(wav.samples), labels)
    }

    static func isSpeech(_ labels: Labels, frame index: Int) -> Bool {
        let centre = index * 20 + 10
        return labels.speech.contains { $0.start_ms <= centre && centre < $0.end_ms }
    }

    /// The noise segment lies between the two speech clips.
    static func noiseRange(_ labels: Labels) -> Range<Int> {
        labels.speech[0].end_ms..<labels.speech[1].start_ms
    }

    static func evaluate(_ frames: [AudioFrame], _ labels: Labels) -> (accuracy: Double, onsetsInNoise: [Int]) {
        var vad = VoiceActivityDetector()
        var correct = 0
        var onsetsInNoise: [Int] = []
        for (i, frame) in frames.enumerated() {
            let decision = vad.process(frame)
            if decision.isSpeech == isSpeech(labels, frame: i) { correct += 1 }
            if decision.event == .speechStarted, noiseRange(labels).contains(i * 20) { onsetsInNoise.append(i * 20) }
        }
        return (Double(correct) / Double(frames.count), onsetsInNoise)
    }

    @Test func labelledMixIsClassifiedAtLeastNinetyPercentRightWithNoOnsetInNoise() throws {
        let (frames, labels) = try Self.mix()
        #expect(frames.count == labels.total_ms / 20)
        let (accuracy, onsetsInNoise) = Self.evaluate(frames, labels)
        #expect(accuracy >= 0.90, "frame accuracy \(accuracy)")
        #expect(onsetsInNoise.isEmpty, "speech onset inside white noise at \(onsetsInNoise) ms")
    }

    @Test func worksOnTelephoneAudioAfterAMuLawRoundTrip() throws {
        let (frames, labels) = try Self.mix()
        let phone = frames.map { AudioFrame(samples: G711.decode(G711.encode($0.samples, law: .muLaw), law: .muLaw), sampleRate: 8000, timestamp: $0.timestamp) }
        let (accuracy, onsetsInNoise) = Self.evaluate(phone, labels)
        #expect(accuracy >= 0.90, "frame accuracy \(accuracy)")
        #expect(onsetsInNoise.isEmpty)
    }

    @Test func theNoiseAloneNeverStartsSpeechEvenWhenLouder() {
        var vad = VoiceActivityDetector()
        var seed: UInt64 = 7
        for _ in 0..<250 {   // 5 s of white noise at about -20 dBFS
            let samples = (0..<160).map { _ -> Int16 in
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                return Int16(truncatingIfNeeded: Int64(seed >> 33) % 6000 - 3000)
            }
            let d = vad.process(AudioFrame(samples: samples, sampleRate: 8000))
            #expect(!d.isSpeech)
        }
    }

    @Test func onsetAndOffsetFollowTheConfiguredTimes() {
        var config = VoiceActivityDetector.Configuration(onsetMilliseconds: 60, offsetMilliseconds: 100)
        config.energyThresholdDBFS = -45
        var vad = VoiceActivityDetector(configuration: config)
        let voiced = AudioFrame(samples: ResamplerTests.sine(frequency: 200, rate: 8000, seconds: 0.02), sampleRate: 8000)
        let quiet = AudioFrame.silence(sampleRate: 8000)
        let decisions = (Array(repeating: voiced, count: 5) + Array(repeating: quiet, count: 6)).map { vad.process($0) }
        #expect(decisions.map(\.isSpeech) == [false, false, true, true, true, true, true, true, true, false, false])
        #expect(decisions[2].event == .speechStarted && decisions[9].event == .speechEnded)
        #expect(decisions.filter { $0.event != nil }.count == 2)
        #expect(decisions[2].speechMilliseconds == 60 && decisions[4].speechMilliseconds == 100)
    }

    @Test func aShortClickDoesNotStartSpeech() {
        var vad = VoiceActivityDetector()
        let voiced = AudioFrame(samples: ResamplerTests.sine(frequency: 200, rate: 8000, seconds: 0.02), sampleRate: 8000)
        #expect(vad.process(voiced).isSpeech == false)
        #expect(vad.process(.silence(sampleRate: 8000)).isSpeech == false)
        #expect(vad.process(voiced).isSpeech == false)
    }
}
