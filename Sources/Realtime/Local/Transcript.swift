import Foundation

/// What a recognizer heard: the words, and how sure it was of them.
public struct Transcript: Sendable, Equatable {
    public var text: String
    /// The geometric mean of the probabilities the recognizer gave the tokens it wrote (each as
    /// the model scored it, before any bias toward expected words), times the chance there was
    /// speech at all where the model says one: 1 is certain. A word the audio barely supports
    /// pulls it down — an unclear line, a mumble, a word the decoder was steered to.
    public var confidence: Double
    /// The language the words were heard in (ISO 639-1), where the recognizer told it among several
    /// the call may be in (`WhisperTranscriber.Listener`); nil: the call's one language.
    public var language: String?

    public init(text: String, confidence: Double, language: String? = nil) {
        self.text = text
        self.confidence = confidence
        self.language = language
    }

    /// Words that did not come from a recognizer (keys pressed, text typed): as sure as can be.
    public init(certain text: String) {
        self.init(text: text, confidence: 1)
    }

    /// `confidence` from the log-probabilities of the tokens written: exp of their mean (0 for none).
    static func confidence(logProbabilitySum: Double, tokens: Int) -> Double {
        tokens == 0 ? 0 : exp(logProbabilitySum / Double(tokens))
    }
}
