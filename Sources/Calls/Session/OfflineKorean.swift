import Foundation
import Realtime
import Synchronization

/// What a Korean call on the local engine hears and speaks with: Whisper base (loaded at the first
/// Korean call, then shared by all: 100–200 MB that an English-only server never pays) and espeak-ng's
/// Korean voice, slowed down for a listener: at its default rate its Korean is hard to follow.
public final class OfflineKorean: Sendable {
    /// Slower than espeak-ng's 175 for a person on the phone (not measured with listeners; Whisper hears
    /// 140 and 165 about equally badly, `make bench`'s `korean` suite).
    public static let wordsPerMinute = 140

    public let whisperPath: String
    public let lanes: Int
    private let loaded = Mutex<WhisperTranscriber?>(nil)

    public init(whisperPath: String, lanes: Int) {
        self.whisperPath = whisperPath
        self.lanes = lanes
    }

    /// Whisper, loaded the first time; the reason it cannot run otherwise (not installed, this CPU).
    public func whisper() throws -> WhisperTranscriber {
        try loaded.withLock { loaded in
            if let loaded { return loaded }
            let whisper = try WhisperTranscriber(directory: whisperPath, lanes: lanes)
            loaded = whisper
            return whisper
        }
    }

    /// The ear and the voice of one Korean call (`voice`: the call's own espeak-ng voice, else "ko").
    public func speech(voice: String?) throws -> (ear: any SpeechRecognizer, voice: EspeakSynthesizer) {
        (try whisper().listening(in: "ko"), try self.voice(voice))
    }

    /// The Korean voice (`name`: the call's own espeak-ng voice, else "ko").
    public func voice(_ name: String? = nil) throws -> EspeakSynthesizer {
        try EspeakSynthesizer(voice: name ?? "ko", wordsPerMinute: Self.wordsPerMinute)
    }

    /// Why a Korean call cannot run here, or nil when it can (checked when a call or template asks for `ko`).
    public func problem() -> String? {
        do { _ = try whisper(); return nil } catch { return "language ko needs Whisper offline: \(error)" }
    }
}
