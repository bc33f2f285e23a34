import Foundation
import Pipeline
import Synchronization
import Testing
import TestSupport
@testable import Realtime

/// Moonshine asks whether the words are still wanted before its encoder and at every decoder
/// step, and stops at the first no: a caller's words up to a pause cost nothing more once the
/// caller goes on.
@Suite struct MoonshineGivingUpTests {
    @Test func aTranscriptionNoLongerWantedStopsAtTheNextStep() async throws {
        let tts = try EspeakSynthesizer(voice: "en-us")
        let stt = try MoonshineTranscriber.loaded(directory: Fixtures.moonshine, lanes: 1)
        let resampler = try Resampler(from: EspeakSynthesizer.sampleRate, to: 16000)
        let clip = resampler.process(try await tts.synthesize("My name is Jane Smith and I can attend the meeting.")) + resampler.flush()
        let asked = Mutex(0)
        let whole = try await stt.transcript(pcm16k: clip) { asked.withLock { $0 += 1 }; return true }
        let steps = asked.withLock { $0 }
        #expect(steps > 5, "asked before the encoder and at each of the decoder's steps (\(steps), heard \"\(whole.text)\")")
        asked.withLock { $0 = 0 }
        // Wanted for the encoder and two steps, then not.
        await #expect(throws: CancellationError.self) {
            try await stt.transcript(pcm16k: clip) { asked.withLock { $0 += 1; return $0 <= 3 } }
        }
        #expect(asked.withLock { $0 } == 4, "stopped at the first no")
    }
}
