import Dialogue
import Foundation
import Pipeline
import Realtime

/// `make bench`'s `recognition` suite: the answers the persona callees give (numbers to dial,
/// days and times, counts, yes and no, and refusals put to those questions), spoken by espeak-ng
/// at the simulated callee's rate and at its slower repeat rate, 8 kHz μ-law round-tripped, then
/// transcribed by Moonshine with the bias toward the question's words (`MoonshineTranscriber.Bias`)
/// at several strengths. A line counts as right when the local dialogue reads the same meaning
/// from the transcript as from the line's own text — so the expected answers are not written
/// here, and a refusal that the bias turned into digits counts as wrong. `wideband` is the same at
/// the default bias from 16 kHz linear audio, as the dashboard's microphone delivers it (Try it).
enum RecognitionBiasBenchmark {
    static let phone = "What number can we reach you on?", when = "When would suit you for a visit?", count = "How many people are coming?"
    static let attend = "Can you attend?", budget = "What is your monthly budget?"
    static let cases: [(question: String, line: String)] = [
        (phone, "It is five five five, one two three, four five six seven."), (phone, "Two zero two, five five five, zero one nine eight."),
        (phone, "Five five five, nine eight seven, six five four three."), (phone, "Plus four four, two zero seven, nine four six, zero nine five eight."),
        (phone, "Five five five, two three four, nine eight seven six."), (phone, "It's five five five, two one two, four four four four."),
        (phone, "That's private."), (phone, "I'd rather not say."),
        (when, "Tomorrow at two."), (when, "Next Monday."), (when, "Friday at half past ten in the morning."), (when, "March fifth at 3 pm."),
        (when, "Tomorrow at ten in the morning."), (when, "The day after tomorrow at eleven."), (when, "No comment."),
        (count, "Three of us."), (count, "Twenty five people."), (count, "Just two."), (count, "Probably four."),
        (budget, "About two hundred and fifty dollars."), (count, "I would rather not answer that."),
        (attend, "Yes, I can attend the meeting."), (attend, "No, the original location is fine."), (attend, "Of course."),
        (attend, "Of course not."), (attend, "Not really, sorry."), (attend, "Nope."), (attend, "Sure, why not."), (attend, "No thanks."),
        (attend, "Yes, I can come."), (attend, "I don't think so."),
    ]
    static let defaultBias = LocalEngine.defaultRecognitionBias
    static let bonuses: [Float] = [0, 3, defaultBias, 8]
    static let rates = [165, 124]

    struct Row {
        var kind: AnswerKind
        var rate: Int
        var right: [Int]   // per bonus
        /// Right at the default bias from 16 kHz audio (no phone line).
        var wideband = 0
        /// Right by Whisper base (English, unbiased) over the same phone line: is it the better English ear?
        var whisper = 0
        /// Right at the default bias over the phone line when Piper's voice says it (the simulated
        /// callee's natural voice; its slower rate for the repeat rate).
        var piper = 0
        /// Seconds Piper took to say the lines, and seconds of speech it made.
        var piperSeconds = 0.0, piperSpeech = 0.0
        var total = 0
    }

    static func run(moonshinePath: String, whisperPath: String, piper: PiperVoice) async throws -> [Row] {
        let stt = try MoonshineTranscriber(directory: moonshinePath)
        let whisper = try WhisperTranscriber(directory: whisperPath, lanes: 1)
        let now = Date()
        var rows: [String: Row] = [:]
        for rate in rates {
            let voice = try EspeakSynthesizer(voice: "en-us", wordsPerMinute: rate)
            for (question, line) in cases {
                let interpreter = ReplyInterpreter(questions: [question], now: now)
                let kind = interpreter.kinds[0]
                let expected = interpreter.interpret(line, asked: 0, open: [0])
                let spoken = try await voice.synthesize(line)
                let audio = try await telephone(spoken)
                let key = "\(kind.rawValue)/\(rate)"
                var row = rows[key] ?? Row(kind: kind, rate: rate, right: bonuses.map { _ in 0 })
                row.total += 1
                for (i, bonus) in bonuses.enumerated() {
                    let bias = bonus > 0 ? stt.bias(toward: kind.expectedWords, bonus: bonus) : nil
                    let heard = try await stt.transcribe(pcm16k: audio, bias: bias)
                    if interpreter.interpret(heard, asked: 0, open: [0]) == expected { row.right[i] += 1 }
                }
                if interpreter.interpret(try await whisper.transcribe(pcm16k: audio, language: "en"), asked: 0, open: [0]) == expected { row.whisper += 1 }
                let wide = try await wideband(spoken)
                let heard = try await stt.transcribe(pcm16k: wide, bias: stt.bias(toward: kind.expectedWords, bonus: defaultBias))
                if interpreter.interpret(heard, asked: 0, open: [0]) == expected { row.wideband += 1 }
                let started = ContinuousClock.now
                let said = try await piper.synthesize(line, slowness: Float(rates[0]) / Float(rate))
                row.piperSeconds += (ContinuousClock.now - started) / .seconds(1)
                row.piperSpeech += Double(said.count) / Double(piper.sampleRate)
                let natural = try await telephone(said, rate: piper.sampleRate)
                let heardNatural = try await stt.transcribe(pcm16k: natural, bias: stt.bias(toward: kind.expectedWords, bonus: defaultBias))
                if interpreter.interpret(heardNatural, asked: 0, open: [0]) == expected { row.piper += 1 }
                rows[key] = row
            }
        }
        return rows.values.sorted { ($0.kind.rawValue, $0.rate) < ($1.kind.rawValue, $1.rate) }
    }

    /// espeak-ng's 22 050 Hz speech as a 16 kHz microphone stream carries it (linear, no phone band).
    static func wideband(_ samples: [Int16]) async throws -> [Int16] {
        let down = try Resampler(from: EspeakSynthesizer.sampleRate, to: MoonshineTranscriber.sampleRate)
        return down.process(samples) + down.flush()
    }

    /// Speech (espeak-ng's 22 050 Hz unless said) as a phone line carries it: 8 kHz μ-law, then 16 kHz for Moonshine.
    static func telephone(_ samples: [Int16], rate: Int = EspeakSynthesizer.sampleRate) async throws -> [Int16] {
        let down = try Resampler(from: rate, to: 8000)
        let line = G711.decode(G711.encode(down.process(samples) + down.flush(), law: .muLaw), law: .muLaw)
        let up = try Resampler(from: 8000, to: MoonshineTranscriber.sampleRate)
        return up.process(line) + up.flush()
    }
}
