import Dialogue
import Foundation
import Pipeline
import Testing
import TestSupport
@testable import Realtime

/// Whisper telling the call's languages apart per utterance (`WhisperTranscriber.Listener` with
/// `others`): answers in English on a Korean call, and in Korean on an English one, over the phone
/// path (8 kHz μ-law), in Piper's English and espeak-ng's Korean — short ones included, which are
/// the easiest to take for the other language. These lines are the tuning set of `switchOdds`;
/// `make bench`'s `languages` suite reports on calls it was not tuned on.
@Suite struct WhisperLanguageTests {
    static let english = ["Yes, I can.", "Thursday at ten in the morning.", "Sure."]
    static let korean = ["네.", "세 명이요.", "제 이름은 박서연입니다."]
    /// The shortest: the likeliest to be taken for the other language.
    static let short = ["Sure.", "네."]

    static func heard(_ speech: [Int16], rate: Int, ear: WhisperTranscriber.Listener) async throws -> Transcript {
        let down = try Resampler(from: rate, to: 8000)
        let line = G711.decode(G711.encode(down.process(speech) + down.flush(), law: .muLaw), law: .muLaw)
        let up = try Resampler(from: 8000, to: 16000)
        return try await ear.transcribe(pcm16k: up.process(line) + up.flush(), expecting: [], bias: 0)
    }

    @Test func englishOnAKoreanCallIsHeardAsEnglish() async throws {
        let whisper = try WhisperTranscriberTests.shared.get()
        let ear = whisper.listening(in: "ko", others: ["en"])
        let voice = try PiperVoice.installed(in: Fixtures.deps)
        var wrong: [String] = []
        for line in Self.english {
            let heard = try await Self.heard(try await voice.synthesize(line), rate: voice.sampleRate, ear: ear)
            if heard.language != "en" { wrong.append("\(line) → \(heard.language ?? "nil"): \(heard.text)") }
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    /// espeak-ng's Korean is heard so badly (issue 58) that Whisper is sure it is Korean only for
    /// its longer lines: those switch the call, and their words are Korean.
    @Test func koreanOnAnEnglishCallIsHeardAsKorean() async throws {
        let whisper = try WhisperTranscriberTests.shared.get()
        let ear = whisper.listening(in: "en", others: ["ko"])
        let voice = try EspeakSynthesizer(voice: "ko", wordsPerMinute: 140)
        var switched: [String] = []
        for line in Self.korean {
            let heard = try await Self.heard(try await voice.synthesize(line), rate: EspeakSynthesizer.sampleRate, ear: ear)
            guard heard.language == "ko" else { continue }
            switched.append(line)
            #expect(heard.text.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) }, "\(line) heard as \(heard.text)")
        }
        #expect(switched.contains("제 이름은 박서연입니다."), "\(switched)")
    }

    /// The language being spoken holds unless another is clearly likelier: each line in its own
    /// language stays there.
    @Test func theLanguageSpokenHolds() async throws {
        let whisper = try WhisperTranscriberTests.shared.get()
        let piper = try PiperVoice.installed(in: Fixtures.deps)
        let espeak = try EspeakSynthesizer(voice: "ko", wordsPerMinute: 140)
        var wrong: [String] = []
        for line in Self.english where Self.short.contains(line) {
            let heard = try await Self.heard(try await piper.synthesize(line), rate: piper.sampleRate, ear: whisper.listening(in: "en", others: ["ko"]))
            if heard.language != "en" { wrong.append("\(line) → \(heard.language ?? "nil")") }
        }
        for line in Self.korean where Self.short.contains(line) {
            let heard = try await Self.heard(try await espeak.synthesize(line), rate: EspeakSynthesizer.sampleRate, ear: whisper.listening(in: "ko", others: ["en"]))
            if heard.language != "ko" { wrong.append("\(line) → \(heard.language ?? "nil")") }
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test func oddsDecideTheSwitch() {
        var probabilities = [Float](repeating: 0, count: 4)
        probabilities[1] = 0.2; probabilities[2] = 0.7   // token 1: the language spoken; 2: another
        #expect(WhisperTranscriber.spokenLanguage(probabilities, among: [1, 2]) == 0, "3.5 times likelier: not enough")
        probabilities[1] = 0.05; probabilities[2] = 0.3
        #expect(WhisperTranscriber.spokenLanguage(probabilities, among: [1, 2]) == 0, "6 times likelier, but other languages likelier still")
        probabilities[1] = 0.1; probabilities[2] = 0.85
        #expect(WhisperTranscriber.spokenLanguage(probabilities, among: [1, 2]) == 1)
        probabilities[3] = 0.9
        #expect(WhisperTranscriber.spokenLanguage(probabilities, among: [1, 2, 3]) == 2, "the likeliest of the others")
        #expect(WhisperTranscriber.spokenLanguage(probabilities, among: [1]) == 0)
    }
}
