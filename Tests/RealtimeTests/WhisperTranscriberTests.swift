import Dialogue
import Foundation
import Pipeline
import Testing
import TestSupport
@testable import Realtime

/// Whisper base through whisper.cpp (`make deps`): it hears the speech fixtures in English and in
/// Korean over the phone path (8 kHz, upsampled), says nothing for silence or noise, and refuses
/// clearly where it cannot run.
@Suite struct WhisperTranscriberTests {
    static let shared = Result { try WhisperTranscriber(directory: Fixtures.whisper, lanes: 1) }

    /// A fixture (8 kHz) at 16 kHz.
    static func phone(_ name: String) throws -> [Int16] {
        let wav = try WAVFile.read(Fixtures.audio(name))
        let resampler = try Resampler(from: 8000, to: 16000)
        return resampler.process(wav.format == 7 ? G711.decode(wav.data, law: .muLaw) : wav.samples) + resampler.flush()
    }

    /// espeak-ng's speech as a phone line carries it: 8 kHz μ-law, back at 16 kHz.
    static func phone(_ speech: [Int16]) throws -> [Int16] {
        let down = try Resampler(from: EspeakSynthesizer.sampleRate, to: 8000)
        let line = G711.decode(G711.encode(down.process(speech) + down.flush(), law: .muLaw), law: .muLaw)
        let up = try Resampler(from: 8000, to: 16000)
        return up.process(line) + up.flush()
    }

    /// espeak-ng's English at 16 kHz is heard (at most a word wrong); the phone fixture as "I can offend the
    /// meeting." (whisper.cpp's own `whisper_full` hears the same): the 4 kHz band, not this decoding.
    @Test func itHearsEnglish() async throws {
        let stt = try Self.shared.get()
        let speech = try await EspeakSynthesizer(voice: "en-us").synthesize("Yes, I can attend the meeting on Tuesday.")
        let resampler = try Resampler(from: EspeakSynthesizer.sampleRate, to: 16000)
        let wide = try await stt.transcribe(pcm16k: resampler.process(speech) + resampler.flush(), language: "en")
        #expect(wordErrors(reference: "Yes, I can attend the meeting on Tuesday.", hypothesis: wide) <= 1, "heard: \(wide)")
        let phone = try await stt.transcribe(pcm16k: Self.phone("en_yes_attend.ulaw.wav"), language: "en")
        #expect(wordErrors(reference: "Yes, I can attend the meeting.", hypothesis: phone) <= 2, "heard: \(phone)")
    }

    /// espeak-ng's Korean is barely intelligible (docs/guide/offline.md, "What to expect offline"): a short "네" is
    /// heard over the phone; the fixture's sentence comes out as Korean, not as its words.
    @Test func itHearsKorean() async throws {
        let stt = try Self.shared.get()
        let yes = try await stt.transcribe(pcm16k: Self.phone(try await EspeakSynthesizer(voice: "ko").synthesize("네.")), language: "ko")
        #expect(yes.contains("네"), "heard: \(yes)")
        let sentence = try await stt.transcribe(pcm16k: Self.phone("ko_yes_attend.ulaw.wav"), language: "ko")
        let letters = sentence.unicodeScalars.filter { CharacterSet.letters.contains($0) }
        let hangul = letters.filter { (0xAC00...0xD7A3).contains($0.value) }
        #expect(!letters.isEmpty && hangul.count * 10 >= letters.count * 9, "heard: \(sentence)")
    }

    @Test func silenceAndNoiseAreNotWords() async throws {
        let stt = try Self.shared.get()
        #expect(try await stt.transcribe(pcm16k: [Int16](repeating: 0, count: 32_000), language: "ko") == "")
        var generator = SystemRandomNumberGenerator()
        let hiss = (0..<32_000).map { _ in Int16.random(in: -300...300, using: &generator) }
        let heard = try await stt.transcribe(pcm16k: hiss, language: "en")
        #expect(heard == "", "heard: \(heard)")
        #expect(try await stt.transcribe(pcm16k: [Int16](repeating: 0, count: 1_000), language: "en") == "", "a sliver is not transcribed")
    }

    @Test func whatNoOneSaidIsDropped() {
        #expect(WhisperTranscriber.withoutAnnotations(" [BLANK_AUDIO]") == "")
        #expect(WhisperTranscriber.withoutAnnotations(" 네, (웃음) 참석할게요. [끝]") == "네, 참석할게요.")
    }

    /// Whisper saying its prompt back is not taken for an answer: "네, 아니요." heard for a "아니요" it
    /// could not make out would store a yes.
    @Test func thePromptSaidBackIsDropped() {
        let yesNo = AnswerKind.yesNo.koreanExpectedWords
        #expect(WhisperTranscriber.Listener.withoutEcho("네, 아니요.", of: yesNo) == "")
        #expect(WhisperTranscriber.Listener.withoutEcho("아, 네, 아니요.", of: yesNo) == "아")
        #expect(WhisperTranscriber.Listener.withoutEcho("네, 네.", of: yesNo) == "네, 네.", "one answer said twice is an answer")
        #expect(WhisperTranscriber.Listener.withoutEcho("네, 좋아요.", of: yesNo) == "네, 좋아요.")
        #expect(WhisperTranscriber.Listener.withoutEcho("오늘, 내일, 모레.", of: AnswerKind.dateTime.koreanExpectedWords) == "")
        #expect(WhisperTranscriber.Listener.withoutEcho("모레 오전 열 시요.", of: AnswerKind.dateTime.koreanExpectedWords) == "모레 오전 열 시요.")
        #expect(WhisperTranscriber.Listener.prompt(yesNo) == "네, 아니요." && WhisperTranscriber.Listener.prompt([]) == nil)
    }

    @Test func aPhraseSaidThreeTimesOverIsKeptOnce() {
        #expect(WhisperTranscriber.withoutRepeats([1, 2, 3, 4, 5, 4, 5, 4, 5]) == [1, 2, 3, 4, 5])
        #expect(WhisperTranscriber.withoutRepeats([7, 7, 7]) == [7])
        #expect(WhisperTranscriber.withoutRepeats([1, 2, 1, 2, 3]) == nil)
        // Moonshine: a digit four times is a number, six times a loop; so is a digit and its comma
        // (two tokens); a longer phrase four times.
        #expect(MoonshineTranscriber.withoutRepeats([9, 4, 4, 4, 4]) == nil && MoonshineTranscriber.withoutRepeats([9, 4, 4, 4, 4, 4, 4]) == [9, 4])
        #expect(MoonshineTranscriber.withoutRepeats([9, 4, 0, 4, 0, 4, 0, 4, 0]) == nil)
        #expect(MoonshineTranscriber.withoutRepeats([9] + Array(repeating: [4, 0], count: 6).flatMap { $0 }) == [9, 4, 0])
        #expect(MoonshineTranscriber.withoutRepeats([1, 2, 3, 1, 2, 3, 1, 2, 3]) == nil && MoonshineTranscriber.withoutRepeats([7, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]) == [7, 1, 2, 3])
    }

    @Test func whereItCannotRunItSaysWhy() throws {
        #expect { try WhisperTranscriber(directory: "/nonexistent") } throws: { "\($0)".contains("make deps") }
        #expect(WhisperLibrary.missingCPUFlags(cpuinfo: "processor\t: 0\nflags\t\t: fpu sse2 avx fma\n") == ["avx2", "f16c"])
        #expect(WhisperLibrary.missingCPUFlags(cpuinfo: "flags\t\t: avx2 fma f16c sse4_2\n").isEmpty)
        #expect(try Self.shared.get().knows(language: "ko") && !Self.shared.get().knows(language: "xx"))
    }
}
