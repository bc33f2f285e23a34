import Pipeline
import CEspeakNG
import Foundation
import Synchronization

/// Text-to-speech through libespeak-ng: 22 050 Hz mono 16-bit, about a thousand times real time.
///
/// Thread safety of libespeak-ng: one voice, one parameter set and one callback per process, and
/// `espeak_Synth` in synchronous mode runs the whole synthesis (milliseconds a sentence, more for
/// a long text) on the calling thread. So every call into the library holds one lock, and the
/// syntheses run on `lane`, a dispatch queue of their own, never on Swift's cooperative pool (two
/// threads here, pacing every call's audio): a task waiting for its speech suspends instead of
/// blocking a pool thread behind another call's synthesis. Which voices exist is asked of the
/// library once per name and remembered, so making a synthesizer for a call costs no lock.
public final class EspeakSynthesizer: Sendable {
    public static let sampleRate = 22_050

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The library's global state, guarded; `initialized` is set once per process.
    static let library = Mutex(false)
    /// Voice names already asked of the library: whether it has them.
    private static let voices = Mutex<[String: Bool]>([:])
    /// One lane: the library does one synthesis at a time whatever the number of threads.
    static let lane = BlockingWorkPool(label: "voicebridge.espeak", width: 1, capacity: 256)

    public let voice: String
    public let wordsPerMinute: Int

    /// Checks that espeak-ng has `voice` (asking the library the first time a name is used).
    public static let defaultWordsPerMinute = 165

    public init(voice: String = "en-us", wordsPerMinute: Int = defaultWordsPerMinute) throws {
        self.voice = voice
        self.wordsPerMinute = wordsPerMinute
        if let known = Self.voices.withLock({ $0[voice] }) {
            guard known else { throw Failure(description: "espeak-ng has no voice '\(voice)'") }
            return
        }
        let exists = try Self.library.withLock { initialized in
            try Self.initialize(&initialized)
            return espeak_SetVoiceByName(voice) == EE_OK
        }
        Self.voices.withLock { $0[voice] = exists }
        guard exists else { throw Failure(description: "espeak-ng has no voice '\(voice)'") }
    }

    static func initialize(_ initialized: inout Bool) throws {
        guard !initialized else { return }
        // Synchronous mode: espeak_Synth returns when all audio went through the callback.
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 200, nil, 0)
        guard rate == Int32(sampleRate) else { throw Failure(description: "espeak_Initialize failed (\(rate)); is espeak-ng-data installed? (make deps)") }
        espeak_SetSynthCallback(synthCallback)
        initialized = true
    }

    /// Collects callback samples for one `synthesize` call.
    final class Collector {
        var samples: [Int16] = []
    }

    /// Texts said before, by voice and rate (`SpeechCache`): at most 4 M samples (8 MB).
    private static let said = Mutex(SpeechCache(capacity: 4_000_000))

    /// Speaks `text` on the synthesis lane; returns 22.05 kHz samples.
    public func synthesize(_ text: String) async throws -> [Int16] {
        let key = "\(voice) \(wordsPerMinute) \(text)"
        if let audio = Self.said.withLock({ $0[key] }) { return audio }
        let audio = try await Self.lane.run { [self] in try synthesizeNow(text) }
        Self.said.withLock { $0.keep(audio, for: key) }
        return audio
    }

    /// Speaks `text` on the calling thread, blocking it for the synthesis.
    private func synthesizeNow(_ text: String) throws -> [Int16] {
        try Self.library.withLock { initialized in
            try Self.initialize(&initialized)
            guard espeak_SetVoiceByName(voice) == EE_OK else { throw Failure(description: "espeak-ng has no voice '\(voice)'") }
            espeak_SetParameter(espeakRATE, Int32(wordsPerMinute), 0)
            let collector = Collector()
            let context = Unmanaged.passRetained(collector)
            defer { context.release() }
            let status = text.withCString { chars in
                espeak_Synth(chars, strlen(chars) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, context.toOpaque())
            }
            guard status == EE_OK else { throw Failure(description: "espeak_Synth failed (\(status.rawValue))") }
            return collector.samples
        }
    }
}

/// espeak's synth callback: append the block to the collector named in the event's user_data.
private func synthCallback(_ wav: UnsafeMutablePointer<Int16>?, _ count: Int32, _ events: UnsafeMutablePointer<espeak_EVENT>?) -> Int32 {
    guard let events, let userData = events.pointee.user_data else { return 0 }
    let collector = Unmanaged<EspeakSynthesizer.Collector>.fromOpaque(userData).takeUnretainedValue()
    if let wav, count > 0 { collector.samples.append(contentsOf: UnsafeBufferPointer(start: wav, count: Int(count))) }
    return 0   // continue
}
