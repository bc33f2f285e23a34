import Foundation
import Testing
@testable import Realtime

/// espeak-ng's speech is a function of the text, the voice and the rate: what was said before in
/// the process does not change it (libespeak-ng in process carried its wave generator's state over:
/// the same sentence came out 39,010 then 39,021 samples long, and a simulated callee was heard
/// differently depending on the calls before it).
@Suite struct EspeakSynthesizerTests {
    @Test(arguments: ["en-us", "ko"]) func theSameTextIsTheSameAudioWhateverWasSaidBefore(voice: String) throws {
        let speaker = try EspeakSynthesizer(voice: voice, wordsPerMinute: 171)
        let text = voice == "ko" ? "네, 참석할 수 있어요." : "Yes, I can attend the meeting."
        let first = try speaker.synthesizeNow(text)
        _ = try speaker.synthesizeNow(voice == "ko" ? "다른 말을 먼저 합니다" : "Something else entirely, said before")
        _ = try EspeakSynthesizer(voice: voice, wordsPerMinute: 120).synthesizeNow(text)
        let again = try speaker.synthesizeNow(text)
        #expect(first.count > EspeakSynthesizer.sampleRate / 2, "\(first.count) samples")
        #expect(first == again, "\(first.count) then \(again.count) samples, \(zip(first, again).filter { $0 != $1 }.count) different")
    }

    /// What reaches the command: one argument after `--` (a text that starts like an option is
    /// said, not parsed), `[[` not taken as the start of phonemes, no NUL.
    @Test func theTextReachesTheCommandAsWordsToSay() throws {
        let arguments = EspeakCommand.arguments(for: "-5 degrees [[h@'loU]] a\0b", voice: "en-us", wordsPerMinute: 165)
        #expect(arguments == ["-v", "en-us", "-s", "165", "-z", "--stdout", "--", "-5 degrees [ [h@'loU]] ab"])
        #expect(EspeakCommand.arguments(for: "[[[ [[", voice: "en-us", wordsPerMinute: 165).last == "[ [ [ [ [")
        let speaker = try EspeakSynthesizer(voice: "en-us")
        let dashed = try speaker.synthesizeNow("-5 degrees")
        #expect(dashed.count > EspeakSynthesizer.sampleRate / 2, "said, not taken for an option: \(dashed.count) samples")
    }

    @Test func aWAVThatIsNotTheCommandsIsRefusedByName() throws {
        #expect(throws: EspeakSynthesizer.Failure.self) { try EspeakCommand.samples(ofWAV: Array("not a wav".utf8)) }
        var header = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 1, 0, 2, 0]
        header += [0x22, 0x56, 0, 0, 0x88, 0x58, 1, 0, 4, 0, 16, 0] + Array("data".utf8) + [4, 0, 0, 0, 1, 0, 2, 0]
        #expect(throws: EspeakSynthesizer.Failure.self, "stereo") { try EspeakCommand.samples(ofWAV: header) }
        header[22] = 1
        #expect(try EspeakCommand.samples(ofWAV: header) == [1, 2])
    }
}
