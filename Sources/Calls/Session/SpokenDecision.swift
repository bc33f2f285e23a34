import Dialogue
import Pipeline
import Realtime

/// A warm transfer's person answering by voice: their audio through a VAD, each utterance (cut
/// at 4 s) handed out to be transcribed and read as yes or no. Words that say neither ("hello?")
/// decide nothing.
struct SpokenDecision {
    private var vad = VoiceActivityDetector(configuration: .init(onsetMilliseconds: 60, offsetMilliseconds: 400))
    private var utterance: [Int16] = []
    /// The last 300 ms before speech began: the VAD starts late, and the recognizer wants the
    /// word's onset and a little quiet before it.
    private var before: [Int16] = []
    static let longestSamples = 4 * 8000
    static let beforeSamples = 2400

    /// One 20 ms μ-law frame of the person's; a finished utterance (8 kHz) when this frame ends one.
    mutating func hear(_ muLaw: [UInt8]) -> [Int16]? {
        let frame = AudioFrame(samples: G711.decode(muLaw, law: .muLaw), sampleRate: 8000)
        let decision = vad.process(frame)
        if decision.event == .speechStarted { utterance = before }
        if decision.isSpeech || decision.event == .speechEnded {
            utterance += frame.samples
        } else {
            before = Array((before + frame.samples).suffix(Self.beforeSamples))
        }
        guard decision.event == .speechEnded || utterance.count >= Self.longestSamples else { return nil }
        defer { utterance = []; before = [] }
        return utterance.count >= Self.beforeSamples + 1600 ? utterance : nil   // under 0.2 s of speech: a click, not a word
    }

    /// Yes (accept), no (decline) or nil in what the person said.
    static func decision(in words: String) -> Bool? { YesNo.answer(in: words) }
}
