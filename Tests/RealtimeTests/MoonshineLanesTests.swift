import Foundation
import Pipeline
import Testing
import TestSupport
@testable import Realtime

/// Moonshine's lanes: one loaded model serves every call at once.
@Suite struct MoonshineLanesTests {
    /// Transcriptions running side by side on the model's two lanes give what each gives alone
    /// (onnxruntime sessions take concurrent runs). Whether side by side is also faster is a CPU
    /// figure, not a verdict here: it was checked as one (less wall time together than one after
    /// another) until it failed beside other work in make test (3 Dec, 2.95 s against 2.67 s),
    /// where the two cores are not free. `make bench`'s personas run shares the lanes among five
    /// calls at once and reports what transcribing took.
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
        var alone: [String] = []
        for clip in clips { alone.append(try await stt.transcribe(pcm16k: clip)) }
        var together = Array(repeating: "", count: clips.count)
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (i, clip) in clips.enumerated() { group.addTask { (i, try await stt.transcribe(pcm16k: clip)) } }
            for try await (i, text) in group { together[i] = text }
        }
        #expect(together == alone)
        #expect(alone.filter { !$0.isEmpty }.count == clips.count, "heard: \(alone)")
    }
}
