import Foundation
import Pipeline
import Realtime

/// Speech the call can make without its engine: when a provider is lost for good (a realtime
/// socket dropped twice, a cascade provider failing) the caller still hears a goodbye, spoken by
/// the local engine's voice on this machine, instead of silence and a hang-up.
public struct LocalVoice: Sendable {
    private let tts: any SpeechSynthesizer

    /// What the caller hears before the configured closing line.
    public static let apology = "I'm sorry, we have a technical problem and have to end this call."

    public init(tts: any SpeechSynthesizer) { self.tts = tts }

    /// `text` as 8 kHz 20 ms frames, ready for the agent side's frames chain.
    func frames(saying text: String) async throws -> [AudioFrame] {
        let resampler = try Resampler(from: EspeakSynthesizer.sampleRate, to: 8000)
        var chunker = FrameChunker(sampleRate: 8000)
        return chunker.push(resampler.process(try await tts.synthesize(text)) + resampler.flush()) + [chunker.flush()].compactMap { $0 }
    }
}
