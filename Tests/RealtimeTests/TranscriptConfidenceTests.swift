import Foundation
import Pipeline
import Testing
import TestSupport
@testable import Realtime

/// The recognizers say how sure they are: the geometric mean of the probabilities the model gave
/// the tokens it wrote. The same words over a hissing line, or steered by the bias to a word the
/// audio does not hold, come out less sure; silence is no words at all.
@Suite(.serialized) struct TranscriptConfidenceTests {
    /// 8 kHz `line` with hiss `decibels` below full scale (from a fixed seed) if given, at 16 kHz.
    static func wide(_ line: [Int16], hiss decibels: Double? = nil) throws -> [Int16] {
        let line = decibels.map { Hiss.added(to: line, decibels: $0, seed: 7) } ?? line
        let up = try Resampler(from: 8000, to: 16000)
        return up.process(line) + up.flush()
    }

    /// `text` in espeak-ng's `voice` over the phone (8 kHz), hissing if `decibels` is given, at 16 kHz.
    static func phone(_ text: String, voice: String, hiss decibels: Double? = nil) async throws -> [Int16] {
        let speech = try await EspeakSynthesizer(voice: voice).synthesize(text)
        let down = try Resampler(from: EspeakSynthesizer.sampleRate, to: 8000)
        return try wide(down.process(speech) + down.flush(), hiss: decibels)
    }

    @Test func moonshineIsLessSureOfWordsOverHiss() async throws {
        let stt = try MoonshineTranscriber(directory: Fixtures.moonshine)
        let recorded = try WAVFile.read(Fixtures.audio("en_yes_attend.wav")).samples
        let clean = try await stt.transcript(pcm16k: Self.wide(recorded))
        let hissing = try await stt.transcript(pcm16k: Self.wide(recorded, hiss: 15))
        #expect(clean.confidence > 0.75, "\(clean)")
        #expect(hissing.confidence < clean.confidence - 0.2, "clean \(clean), over hiss \(hissing)")
        #expect(try await stt.transcribe(pcm16k: Self.wide(recorded)) == clean.text, "the text alone is the transcript's")
    }

    @Test func aWordTheBiasChoseCountsAtTheModelsOwnScore() async throws {
        let stt = try MoonshineTranscriber(directory: Fixtures.moonshine)
        let audio = try await Self.phone("Does the place need to change?", voice: "en-us")
        let plain = try await stt.transcript(pcm16k: audio)
        let forced = try await stt.transcript(pcm16k: audio, bias: stt.bias(toward: ["five"], bonus: 100))
        #expect(forced.text.lowercased().contains("five"), "\(forced)")
        #expect(forced.confidence < plain.confidence / 2, "plain \(plain), forced \(forced)")
    }

    /// A recorded fixture, not espeak-ng at test time: espeak-ng carries state from one synthesis
    /// to the next, so what it says depends on what the process said before.
    @Test func whisperIsLessSureOfKoreanOverHissAndSilenceIsNothing() async throws {
        let whisper = try WhisperTranscriberTests.shared.get()
        let recorded = try WAVFile.read(Fixtures.audio("ko_yes_attend.wav")).samples
        let clean = try await whisper.transcript(pcm16k: Self.wide(recorded), language: "ko")
        let hissing = try await whisper.transcript(pcm16k: Self.wide(recorded, hiss: 12), language: "ko")
        print("WHISPER-CONF", clean, hissing)
        #expect(!clean.text.isEmpty && clean.confidence > 0, "\(clean)")
        #expect(hissing.confidence < clean.confidence, "clean \(clean), over hiss \(hissing)")
        let silence = try await whisper.transcript(pcm16k: [Int16](repeating: 0, count: 32_000), language: "ko")
        #expect(silence == Transcript(text: "", confidence: 0))
    }
}
