import Dialogue
import Foundation
import Pipeline
import Testing
import TestSupport
@testable import Realtime

@Suite struct LocalSpeechTests {
    @Test func espeakSpeaksEnglishAt22050Hz() async throws {
        let tts = try EspeakSynthesizer(voice: "en-us")
        let samples = try await tts.synthesize("Hello, this is the assistant of ABC Company.")
        let seconds = Double(samples.count) / Double(EspeakSynthesizer.sampleRate)
        #expect(seconds > 1.5 && seconds < 6, "\(seconds) s of speech")
        let peak = samples.map { abs(Int($0)) }.max() ?? 0
        #expect(peak > 3000, "audible, not silence")
    }

    @Test func anUnknownVoiceIsAClearError() {
        #expect(throws: EspeakSynthesizer.Failure.self) { try EspeakSynthesizer(voice: "no-such-voice") }
    }

    /// Moonshine base-en hears this espeak fixture as "Yes, I can offend the meeting." — checked
    /// through the library's own WAV entry point with sox resampling too, so it is the model, not
    /// our audio path. The test holds it to what it does: "yes" heard, at most one word of six wrong.
    @Test(arguments: ["en_yes_attend.wav", "en_yes_attend.ulaw.wav"])
    func moonshineTranscribesTheFixture(name: String) async throws {
        let stt = try MoonshineTranscriber(directory: Fixtures.moonshine)
        let wav = try WAVFile.read(Fixtures.audio(name))
        let narrow = wav.format == 7 ? G711.decode(wav.data, law: .muLaw) : wav.samples
        let resampler = try Resampler(from: 8000, to: 16000, quality: .voice)
        let text = try await stt.transcribe(pcm16k: resampler.process(narrow) + resampler.flush())
        #expect(text.lowercased().contains("yes"), "heard: \(text)")
        #expect(wordErrors(reference: "Yes, I can attend the meeting.", hypothesis: text) <= 1, "heard: \(text)")
    }

    /// What matters for the scripted dialogue: from the callee's recorded answers, through
    /// Moonshine, the dialogue reaches the right conclusion.
    @Test(arguments: [("en_yes_attend.wav", TaskTracker.Status.answered, "yes"), ("en_no_change.wav", .answered, "no"),
                      ("en_unclear.wav", .unclear, nil), ("en_refuse.wav", .refused, nil)] as [(String, TaskTracker.Status, String?)])
    func calleeAnswersAreHeardAndClassified(name: String, status: TaskTracker.Status, summary: String?) async throws {
        let stt = try MoonshineTranscriber(directory: Fixtures.moonshine)
        let resampler = try Resampler(from: 8000, to: 16000)
        let text = try await stt.transcribe(pcm16k: resampler.process(try WAVFile.read(Fixtures.audio(name)).samples) + resampler.flush())
        var dialogue = ScriptedDialogue(context: ConversationContext(purpose: "the meeting", questions: ["Can you attend?"]))
        _ = dialogue.start()
        _ = dialogue.caller(said: text)
        #expect(dialogue.tracker.answers[0].status == status, "heard: \(text)")
        #expect(dialogue.tracker.answers[0].answerSummary == summary, "heard: \(text)")
    }

    @Test func whatEspeakSaysMoonshineUnderstands() async throws {
        let tts = try EspeakSynthesizer(voice: "en-us")
        let speech = try await tts.synthesize("Does the place need to change?")
        let resampler = try Resampler(from: EspeakSynthesizer.sampleRate, to: 16000)
        let text = try await MoonshineTranscriber(directory: Fixtures.moonshine).transcribe(pcm16k: resampler.process(speech) + resampler.flush()).lowercased()
        #expect(text.contains("place") && text.contains("change"), "heard: \(text)")
    }

    /// The bias reaches the decoder: strong enough, the favoured word wins over what was said; at
    /// nothing, the transcript is the plain one. (How much it helps on real answers is `make
    /// bench`'s `recognition` suite.)
    @Test func theRecognizerFavoursTheWordsItIsBiasedToward() async throws {
        let stt = try MoonshineTranscriber(directory: Fixtures.moonshine)
        let speech = try await EspeakSynthesizer(voice: "en-us").synthesize("Does the place need to change?")
        let resampler = try Resampler(from: EspeakSynthesizer.sampleRate, to: 16000)
        let audio = resampler.process(speech) + resampler.flush()
        let plain = try await stt.transcribe(pcm16k: audio)
        #expect(try await stt.transcribe(pcm16k: audio, bias: stt.bias(toward: ["five"], bonus: 0)) == plain)
        let forced = try await stt.transcribe(pcm16k: audio, bias: stt.bias(toward: ["five"], bonus: 100)).lowercased()
        #expect(forced.contains("five") && !forced.contains("place"), "heard: \(forced)")
        #expect(stt.bias(toward: ["five", "no-such-token-word"], bonus: 1) == stt.bias(toward: ["five"], bonus: 1), "words with no token to start them are left out")
        #expect(stt.bias(toward: ["tomorrow"], bonus: 1).tokens.map { stt.tokenizer.text(of: [$0]) }.sorted() == ["Tom", "tom"], "a word of several tokens by its start")
    }

    @Test func aMissingModelNamesMakeDeps() {
        #expect {
            try MoonshineTranscriber(directory: "/nonexistent")
        } throws: { error in
            "\(error)".contains("make deps")
        }
    }
}

/// Word-level edit distance, ignoring case and punctuation.
func wordErrors(reference: String, hypothesis: String) -> Int {
    func words(_ s: String) -> [String] { s.lowercased().split { !$0.isLetter && !$0.isNumber && $0 != "'" }.map(String.init) }
    let r = words(reference), h = words(hypothesis)
    var row = Array(0...h.count)
    for i in 1...max(r.count, 1) where !r.isEmpty {
        var previous = row[0]
        row[0] = i
        for j in stride(from: 1, through: h.count, by: 1) {
            let current = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (r[i - 1] == h[j - 1] ? 0 : 1))
            previous = current
        }
    }
    return r.isEmpty ? h.count : row[h.count]
}
