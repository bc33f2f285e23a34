import Foundation
import Pipeline
import Testing
import TestLanes
import TestSupport
@testable import Realtime

/// Moonshine's lanes on two cores: a check that measures CPU time, so it is one of make test's
/// timed suites (run alone; beside the e2e suites the two cores are not free, and it failed so).
@Suite(.tags(.timed)) struct MoonshineLanesTests {
    /// One loaded model serves every call: transcriptions running side by side on its lanes give
    /// what each gives alone (onnxruntime sessions take concurrent runs), and take less time
    /// together than one after another.
    @Test func transcriptionsRunSideBySideOnOneModel() async throws {
        let tts = try EspeakSynthesizer(voice: "en-us")
        let stt = try MoonshineTranscriber(directory: Fixtures.moonshine, lanes: 2)
        let sentences = ["Yes, I can attend the meeting.", "No, the place does not need to change.", "My name is Jane Smith.",
                         "Please call me back tomorrow.", "I would rather not answer that.", "The meeting is on Monday."]
        var clips: [[Int16]] = []
        for sentence in sentences {
            let resampler = try Resampler(from: EspeakSynthesizer.sampleRate, to: 16000)
            clips.append(resampler.process(try await tts.synthesize(sentence)) + resampler.flush())
        }
        let clock = ContinuousClock()
        var alone: [String] = []
        let serial = try await clock.measure { for clip in clips { alone.append(try await stt.transcribe(pcm16k: clip)) } }
        var together = Array(repeating: "", count: clips.count)
        let parallel = try await clock.measure {
            try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for (i, clip) in clips.enumerated() { group.addTask { (i, try await stt.transcribe(pcm16k: clip)) } }
                for try await (i, text) in group { together[i] = text }
            }
        }
        #expect(together == alone)
        #expect(alone.filter { !$0.isEmpty }.count == clips.count, "heard: \(alone)")
        #expect(parallel < serial, "side by side \(parallel), one after another \(serial)")
    }
}
