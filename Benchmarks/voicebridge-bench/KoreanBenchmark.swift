import Calls
import Dialogue
import Foundation
import Personas
import Pipeline
import Realtime

/// `make bench`'s `korean` suite, the offline Korean ear measured on what the project can make
/// here: every Korean persona line spoken by espeak-ng's Korean voice at the agent's rate (140
/// words a minute) and at the simulated callee's (165), 8 kHz μ-law round-tripped, and the Korean
/// speech fixtures — transcribed by Whisper base as a Korean call's ear runs it (prompted with the
/// answers the question expects; at 140 words a minute also without, to show what the prompt
/// does). Character error rate (Hangul and digits; spaces
/// and punctuation ignored, so "두 시" written "2시" counts as wrong), whether the local dialogue
/// reads the same meaning from the transcript as from the line (yes/no and numbers on their own),
/// Whisper's real-time factor on one lane and the memory loading it adds. The persona share over
/// real calls is `PersonaBenchmark` with `CalleePersona.korean`.
enum KoreanBenchmark {
    struct Line {
        var question: String
        var text: String
    }

    struct Result {
        var rate: String
        var lines = 0, characters = 0, errors = 0
        var yesNo = (right: 0, total: 0), numbers = (right: 0, total: 0), meanings = (right: 0, total: 0)
        /// Lines read as an answer other than the one said (a no as a yes): what a call would store wrongly.
        var wrongAnswers = 0
        var heard: [(said: String, heard: String)] = []
        var cer: Double { characters == 0 ? 0 : Double(errors) / Double(characters) }
    }

    struct Cost {
        var audioSeconds = 0.0, transcribeSeconds = 0.0
        var residentMegabytesAdded = 0.0
        var realTimeFactor: Double { audioSeconds == 0 ? 0 : transcribeSeconds / audioSeconds }
    }

    /// The Korean personas' lines that are words, each with the question it answers.
    static var lines: [Line] {
        CalleePersona.korean.flatMap { persona in
            persona.script.enumerated().compactMap { i, raw -> Line? in
                let text = raw.replacingOccurrences(of: "<vague> ", with: "")
                guard !text.hasPrefix("<"), i < persona.questions.count else { return nil }
                return Line(question: persona.questions[i], text: text)
            }
        }
    }

    static let fixtures = [("ko_yes_attend.ulaw.wav", "네, 참석 가능합니다."), ("ko_no_change.ulaw.wav", "아니요, 기존 장소로 괜찮습니다.")]

    static func run(whisperPath: String, fixtures folder: String) async throws -> (results: [Result], cost: Cost) {
        let before = residentMegabytes()
        let whisper = try WhisperTranscriber(directory: whisperPath, lanes: 1)
        var cost = Cost()
        let now = Date()
        var results: [Result] = []
        for rate in [OfflineKorean.wordsPerMinute, 165] {
            let voice = try EspeakSynthesizer(voice: "ko", wordsPerMinute: rate)
            var result = Result(rate: "espeak-ng ko, \(rate) wpm")
            var plain = Result(rate: "… the same, no prompt")
            for line in lines {
                let audio = try await RecognitionBiasBenchmark.telephone(try await voice.synthesize(KoreanSpeech.speakable(line.text)))
                let ear = whisper.listening(in: "ko")
                let expected = AnswerKind(question: line.question).koreanExpectedWords
                let heard = try await timed(&cost, audio) { try await ear.transcribe(pcm16k: audio, expecting: expected, bias: 1).text }
                score(&result, said: line.text, heard: heard, question: line.question, now: now)
                if rate == OfflineKorean.wordsPerMinute {
                    score(&plain, said: line.text, heard: try await ear.transcribe(pcm16k: audio, expecting: [], bias: 0).text, question: line.question, now: now)
                }
            }
            results.append(result)
            if plain.lines > 0 { results.append(plain) }
        }
        var recorded = Result(rate: "fixtures (espeak-ng ko, μ-law)")
        for (name, text) in fixtures {
            let wav = try WAVFile.read(URL(fileURLWithPath: folder).appendingPathComponent(name))
            let up = try Resampler(from: 8000, to: 16000)
            let audio = up.process(wav.format == 7 ? G711.decode(wav.data, law: .muLaw) : wav.samples) + up.flush()
            let heard = try await timed(&cost, audio) {
                try await whisper.listening(in: "ko").transcribe(pcm16k: audio, expecting: AnswerKind.yesNo.koreanExpectedWords, bias: 1).text
            }
            score(&recorded, said: text, heard: heard, question: "내일 회의에 참석하실 수 있나요?", now: now)
        }
        results.append(recorded)
        cost.residentMegabytesAdded = residentMegabytes() - before   // the model and its decoder state
        return (results, cost)
    }

    static func timed(_ cost: inout Cost, _ audio: [Int16], _ work: () async throws -> String) async throws -> String {
        let started = ContinuousClock.now
        let heard = try await work()
        cost.transcribeSeconds += Double((ContinuousClock.now - started) / .milliseconds(1)) / 1000
        cost.audioSeconds += Double(audio.count) / 16_000
        return heard
    }

    static func score(_ result: inout Result, said: String, heard: String, question: String, now: Date) {
        let reference = Array(significant(said)), hypothesis = Array(significant(heard))
        result.lines += 1
        result.characters += reference.count
        result.errors += editDistance(reference, hypothesis)
        result.heard.append((said, heard))
        let interpreter = ReplyInterpreter(questions: [question], language: "ko", now: now)
        let meaning = interpreter.interpret(heard, asked: 0, open: [0])
        let right = meaning == interpreter.interpret(said, asked: 0, open: [0])
        if !right, case .answers = meaning { result.wrongAnswers += 1 }
        result.meanings.total += 1
        if right { result.meanings.right += 1 }
        switch interpreter.kinds[0] {
        case .yesNo:
            result.yesNo.total += 1
            if right { result.yesNo.right += 1 }
        case .number, .phoneNumber, .dateTime:
            result.numbers.total += 1
            if right { result.numbers.right += 1 }
        default: break
        }
    }

    /// Hangul syllables and digits: what a character error rate counts.
    static func significant(_ text: String) -> [Character] {
        text.filter { character in character.unicodeScalars.allSatisfy { (0xAC00...0xD7A3).contains($0.value) || ($0.isASCII && $0.properties.numericType != nil) } }
            .map { $0 }
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }

    static func residentMegabytes() -> Double {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? 0
    }
}
