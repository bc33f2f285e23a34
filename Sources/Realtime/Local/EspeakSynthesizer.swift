import CEspeakNG
import Foundation
import Synchronization

/// Text-to-speech through libespeak-ng: 22 050 Hz mono 16-bit, about a thousand times real time.
///
/// espeak-ng keeps process-wide state (one voice, one callback), so every synthesis in the
/// process goes through one lock; the samples reach Swift through the callback's `user_data`.
public final class EspeakSynthesizer: Sendable {
    public static let sampleRate = 22_050

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The library's global state, guarded; `initialized` is set once per process.
    private static let library = Mutex(false)

    public let voice: String
    public let wordsPerMinute: Int

    public init(voice: String = "en-us", wordsPerMinute: Int = 165) throws {
        self.voice = voice
        self.wordsPerMinute = wordsPerMinute
        try Self.library.withLock { initialized in
            if !initialized {
                // Synchronous mode: espeak_Synth returns when all audio went through the callback.
                let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 200, nil, 0)
                guard rate == Int32(Self.sampleRate) else { throw Failure(description: "espeak_Initialize failed (\(rate)); is espeak-ng-data installed? (make deps)") }
                espeak_SetSynthCallback(synthCallback)
                initialized = true
            }
            guard espeak_SetVoiceByName(voice) == EE_OK else { throw Failure(description: "espeak-ng has no voice '\(voice)'") }
        }
    }

    /// Collects callback samples for one `synthesize` call.
    final class Collector {
        var samples: [Int16] = []
    }

    /// Speaks `text`; returns 22.05 kHz samples.
    public func synthesize(_ text: String) throws -> [Int16] {
        try Self.library.withLock { _ in
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
