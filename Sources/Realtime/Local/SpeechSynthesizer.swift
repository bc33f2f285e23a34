/// What says the local engine's words: 22 050 Hz mono 16-bit speech for a sentence —
/// espeak-ng (`EspeakSynthesizer`, any of its voices, a thousand times real time) or Piper's
/// voice (`PiperVoice`, a person's sound, ~20× real time on one core).
public protocol SpeechSynthesizer: Sendable {
    func synthesize(_ text: String) async throws -> [Int16]
    /// `sentence` in the pieces to synthesize one after another, each heard while the next is
    /// made: the whole sentence for a fast voice.
    func pieces(of sentence: String) -> [String]
}

extension SpeechSynthesizer {
    public func pieces(of sentence: String) -> [String] { [sentence] }
}

extension EspeakSynthesizer: SpeechSynthesizer {}
