/// What the local engine hears with: speech at 16 kHz in, its words out — steered toward the words
/// the question expects (`bias`: how strongly; 0 not at all) where the recognizer can be.
/// Moonshine base-en hears English; Whisper base (`WhisperTranscriber.listening(in:)`) Korean.
public protocol SpeechRecognizer: Sendable {
    func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float) async throws -> String
}

extension MoonshineTranscriber: SpeechRecognizer {
    public func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float) async throws -> String {
        try await transcribe(pcm16k: samples, bias: words.isEmpty || bias <= 0 ? nil : self.bias(toward: words, bonus: bias))
    }
}

extension WhisperTranscriber {
    /// Whisper bound to one language. It is not steered: a prompt of the expected answers made it
    /// hear "네" in espeak-ng's "아니요" (README "What to expect offline").
    public struct Listener: SpeechRecognizer {
        public let whisper: WhisperTranscriber
        public let language: String

        public func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float) async throws -> String {
            try await whisper.transcribe(pcm16k: samples, language: language)
        }
    }

    public func listening(in language: String) -> Listener { Listener(whisper: self, language: language) }
}
