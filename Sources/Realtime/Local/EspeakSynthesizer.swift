import Pipeline
import CEspeakNG
import Foundation
import Synchronization

/// Text-to-speech with espeak-ng: 22 050 Hz mono 16-bit, about a thousand times real time.
///
/// Each synthesis runs espeak-ng's command in a process of its own (`EspeakCommand`: in this
/// process the library's wave generator carries state from one text to the next), on `lane`,
/// dispatch queues of their own, never on Swift's cooperative pool (two threads here, pacing every
/// call's audio): a task waiting for its speech suspends instead of blocking a pool thread. The
/// library in this process answers which voices exist (asked once per name and remembered, so
/// making a synthesizer for a call costs no lock) and phonemizes for Piper; it has one voice and
/// one parameter set per process, so every call into it holds one lock.
public final class EspeakSynthesizer: Sendable {
    public static let sampleRate = 22_050

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The library's global state, guarded; `initialized` is set once per process.
    static let library = Mutex(false)
    /// Voice names already asked of the library: whether it has them.
    private static let voices = Mutex<[String: Bool]>([:])
    /// A lane per core: each synthesis is a process of its own (the phonemizer takes `library`'s lock).
    static let lane = BlockingWorkPool(label: "voicebridge.espeak", width: ProcessInfo.processInfo.activeProcessorCount, capacity: 256)

    public let voice: String
    public let wordsPerMinute: Int

    public static let defaultWordsPerMinute = 165

    /// Checks that espeak-ng's command is installed and has `voice` (asking the library the first
    /// time a name is used).
    public init(voice: String = "en-us", wordsPerMinute: Int = defaultWordsPerMinute) throws {
        self.voice = voice
        self.wordsPerMinute = wordsPerMinute
        _ = try Self.command.get()
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
        // Synchronous mode: no thread of the library's own (it only looks voices up and phonemizes here).
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 200, nil, 0)
        guard rate == Int32(sampleRate) else { throw Failure(description: "espeak_Initialize failed (\(rate)); is espeak-ng-data installed? (make deps)") }
        initialized = true
    }

    /// Texts said before, by voice and rate (`SpeechCache`): at most 4 M samples (8 MB).
    private static let said = SpeechCache(capacity: 4_000_000)

    /// Speaks `text` on the synthesis lane; returns 22.05 kHz samples.
    public func synthesize(_ text: String) async throws -> [Int16] {
        try await Self.said.speech(for: "\(voice) \(wordsPerMinute) \(text)") {
            try await Self.lane.run { [self] in try synthesizeNow(text) }
        }
    }

    /// Speaks `text` on the calling thread, blocking it for the synthesis (`EspeakCommand`: a
    /// process of its own, so the same text is the same audio whatever was said before it).
    func synthesizeNow(_ text: String) throws -> [Int16] {
        try Self.command.get().synthesize(text, voice: voice, wordsPerMinute: wordsPerMinute)
    }

    /// espeak-ng's command, found once.
    private static let command = Result { try EspeakCommand.installed() }
}
