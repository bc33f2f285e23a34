import Foundation
import Pipeline
import Synchronization

/// Speech-to-text with OpenAI's Whisper base (MIT, multilingual: the local engine's Korean ear),
/// converted for whisper.cpp by `make deps` (`.deps/whisper/ggml-base-q8_0.bin`, ~82 MB) and run
/// through its C library (`WhisperLibrary`), greedy decoding done here.
///
/// One loaded model serves every call; each transcription runs on a lane of `workers` (one thread
/// each, off the cooperative pool) with a decoder state of its own, taken from those idle (a state
/// holds the caches, so at most one per lane is ever made). The encoder always reads a 30 s window,
/// so an utterance costs about the same whatever its length (~1–1.5 s of one core here).
///
/// Whisper invents text for silence and short noises and can repeat itself forever: a segment whose
/// no-speech probability is high and whose words are unlikely is dropped, so are bracketed
/// annotations, and the decoding stops at `maxTokens` and at a phrase said three times over (kept once).
public final class WhisperTranscriber: @unchecked Sendable {
    public static let sampleRate = 16_000
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Most tokens one utterance may yield (about 12 s of Korean speech).
    static let maxTokens = 96
    /// Whisper's own thresholds for dropping a segment as silence.
    static let noSpeechThreshold: Float = 0.6, logProbabilityThreshold: Float = -1
    /// Below a quarter second there is nothing to transcribe.
    static let minimumSamples = sampleRate / 4

    private let library: WhisperLibrary
    private let context: WhisperLibrary.Context
    private let idleStates = Mutex<[WhisperLibrary.State]>([])
    private let vocabulary: Int32
    private let eot: Int32, sot: Int32, previous: Int32, noSpeech: Int32, noTimestamps: Int32, transcribe: Int32
    /// " ": never the first token (whisper.cpp suppresses it too).
    private let blank: Int32?
    /// Where transcriptions run: one lane per core.
    public let workers: BlockingWorkPool

    /// `directory` holds `lib/libwhisper.so.1` and `ggml-base-q8_0.bin` (`.deps/whisper`).
    public init(directory: String, lanes: Int = ProcessInfo.processInfo.activeProcessorCount) throws(Failure) {
        let folder = URL(fileURLWithPath: directory)
        let model = folder.appendingPathComponent("ggml-base-q8_0.bin").path
        guard FileManager.default.fileExists(atPath: model) else {
            throw Failure(description: "Whisper is not installed: \(model) is missing. Run `make deps` (it converts Whisper base into .deps/whisper).")
        }
        let library = try WhisperLibrary(path: folder.appendingPathComponent("lib/libwhisper.so.1").path)
        guard let context = library.initFromFile(model) else { throw Failure(description: "whisper.cpp cannot load \(model)") }
        self.library = library
        self.context = context
        vocabulary = library.vocabularySize(context)
        func special(_ name: String) -> Int32 { library.special[name]!(context) }
        eot = special("eot"); sot = special("sot"); previous = special("prev")
        noSpeech = special("nosp"); noTimestamps = special("not"); transcribe = special("transcribe")
        var space: [Int32] = [0, 0]
        blank = library.tokenize(context, " ", &space, 2) == 1 ? space[0] : nil
        workers = BlockingWorkPool(label: "voicebridge.whisper", width: max(1, lanes), capacity: max(1, lanes) * 16)
    }

    deinit {
        for state in idleStates.withLock({ $0 }) { library.freeState(state) }
        library.free(context)
    }

    /// Whether `code` (ISO 639-1: "ko", "en") is a language Whisper knows.
    public func knows(language code: String) -> Bool { library.languageID(code) >= 0 }

    /// Transcribes 16-bit samples at 16 kHz in `language` on a worker lane (`pool`: lanes of the
    /// caller's own; `limit`: how long the caller waits, as `MoonshineTranscriber.transcribe`).
    /// `prompt`: text said before (Whisper's "previous text"), which steers spelling and vocabulary
    /// toward its words — the answers a question expects.
    public func transcribe(pcm16k samples: [Int16], language: String, prompt: String? = nil,
                           on pool: BlockingWorkPool? = nil, within limit: Duration? = nil) async throws -> String {
        try await transcript(pcm16k: samples, language: language, prompt: prompt, on: pool, within: limit).text
    }

    /// `transcribe`'s words with the model's confidence in them (its no-speech probability counted).
    /// `others`: languages the speaker may have switched to — the one Whisper finds likelier than
    /// `language` (by `switchOdds`) is transcribed and named in the transcript's `language`.
    /// `namingOnly`: languages another recognizer writes better — heard in one of them, the
    /// transcript only names it (no words; Whisper's decoding is skipped).
    public func transcript(pcm16k samples: [Int16], language: String, others: [String] = [], namingOnly: Set<String> = [], prompt: String? = nil,
                           on pool: BlockingWorkPool? = nil, within limit: Duration? = nil) async throws -> Transcript {
        let candidates = [language] + others.filter { $0 != language }
        let naming = Set(candidates.indices.filter { namingOnly.contains(candidates[$0]) })
        let tokens = try candidates.map { code throws(Failure) -> Int32 in
            let id = library.languageID(code)
            guard id >= 0 else { throw Failure(description: "Whisper does not know the language \(code)") }
            return library.languageToken(context, id)
        }
        var heard = try await (pool ?? workers).run(within: limit) { [self] in
            try transcribeNow(samples.map { Float($0) / 32768 }, languages: tokens, namingOnly: naming, prompt: prompt)
        }
        if candidates.count > 1 { heard.transcript.language = candidates[heard.languageIndex] }
        return heard.transcript
    }

    /// How much likelier than the language being spoken another must be before the words are
    /// heard in it, and how likely at least (more than every other language together). Tuned on
    /// `WhisperLanguageTests`' lines over the phone path: Piper's English scored 0.85–0.99 for
    /// English (the Korean 0.0001–0.001); espeak-ng's Korean scored 0.03–0.30 for English (Whisper
    /// hears it as other languages too), so the floor keeps a Korean call in Korean.
    static let switchOdds: Float = 4, switchFloor: Float = 0.5

    /// The language token of `languages` (the first: the one being spoken) the words sound most
    /// like, from the logits after the start of transcript — Whisper's own language detection,
    /// limited to those the call may be in.
    static func spokenLanguage(_ probabilities: [Float], among languages: [Int32]) -> Int {
        var best = 0
        for index in languages.indices.dropFirst() where probabilities[Int(languages[index])] > probabilities[Int(languages[best])] { best = index }
        let likeliest = probabilities[Int(languages[best])]
        return likeliest > probabilities[Int(languages[0])] * switchOdds && likeliest >= switchFloor ? best : 0
    }

    /// A transcript and which of the candidate languages it was heard in.
    private struct Heard {
        var transcript: Transcript
        var languageIndex = 0
    }

    private func transcribeNow(_ samples: [Float], languages: [Int32], namingOnly: Set<Int> = [], prompt: String?) throws(Failure) -> Heard {
        guard samples.count >= Self.minimumSamples else { return Heard(transcript: Transcript(text: "", confidence: 0)) }
        let state = try takeState()
        defer { release(state) }
        let encoded = samples.withUnsafeBufferPointer { pcm in
            library.pcmToMel(context, state, pcm.baseAddress!, Int32(pcm.count), 1) == 0 && library.encode(context, state, 0, 1) == 0
        }
        guard encoded else { throw Failure(description: "whisper.cpp could not encode \(samples.count) samples") }
        // The prompt, then the start of transcript: the logits there say how likely "no speech" is.
        var start = promptTokens(prompt) + [sot]
        try decode(start, past: 0, state: state)
        let afterStart = probabilities(state: state, row: start.count - 1)
        let silence = afterStart[Int(noSpeech)]
        let spoken = Self.spokenLanguage(afterStart, among: languages)
        if namingOnly.contains(spoken) { return Heard(transcript: Transcript(text: "", confidence: 0), languageIndex: spoken) }
        let header = [languages[spoken], transcribe, noTimestamps]
        try decode(header, past: start.count, state: state)
        start += header
        var tokens: [Int32] = []
        var logProbabilities: [Float] = []
        var lastRow = header.count - 1
        while tokens.count < Self.maxTokens {
            var scores = probabilities(state: state, row: lastRow, log: true)
            if tokens.isEmpty {
                scores[Int(eot)] = -.infinity
                if let blank { scores[Int(blank)] = -.infinity }
            }
            // Text tokens and the end; no timestamps, no other special token.
            var best = Int(eot)
            for token in 0..<Int(eot) where scores[token] > scores[best] { best = token }
            if best == Int(eot) { break }
            logProbabilities.append(scores[best])
            tokens.append(Int32(best))
            if let looped = Self.withoutRepeats(tokens) { tokens = looped; logProbabilities = Array(logProbabilities.prefix(tokens.count)); break }
            try decode([Int32(best)], past: start.count + tokens.count - 1, state: state)
            lastRow = 0
        }
        let logProbabilitySum = logProbabilities.reduce(0, +)
        let meanLogProbability = tokens.isEmpty ? -.infinity : logProbabilitySum / Float(tokens.count)
        if silence > Self.noSpeechThreshold && meanLogProbability < Self.logProbabilityThreshold { return Heard(transcript: Transcript(text: "", confidence: 0)) }
        var bytes: [UInt8] = []
        for token in tokens {
            if let text = library.tokenText(context, token) { bytes += Array(UnsafeBufferPointer(start: text, count: strlen(text))).map { UInt8(bitPattern: $0) } }
        }
        let confidence = Transcript.confidence(logProbabilitySum: Double(logProbabilitySum), tokens: tokens.count) * Double(1 - silence)
        return Heard(transcript: Transcript(text: Self.withoutAnnotations(String(decoding: bytes, as: UTF8.self)), confidence: confidence), languageIndex: spoken)
    }

    /// Whisper learned subtitles: what no one said comes out in brackets ("[BLANK_AUDIO]",
    /// "(끝)", "[Music]"). Those spans are dropped.
    static func withoutAnnotations(_ text: String) -> String {
        var kept = ""
        var closing: Character?
        for character in text {
            if let close = closing {
                if character == close { closing = nil }
            } else if character == "[" || character == "(" {
                closing = character == "[" ? "]" : ")"
            } else {
                kept.append(character)
            }
        }
        return kept.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// `tokens` with a run at its end that repeats the phrase before it twice more cut back to one
    /// saying of it, or nil when it does not end so.
    static func withoutRepeats(_ tokens: [Int32]) -> [Int32]? {
        DecoderLoop.cut(tokens) { _ in 3 }
    }

    /// The prompt's tokens after "previous text" (its last 100: Whisper reads at most half its context).
    private func promptTokens(_ prompt: String?) -> [Int32] {
        guard let prompt, !prompt.isEmpty else { return [] }
        var tokens = [Int32](repeating: 0, count: 448)
        let count = library.tokenize(context, " " + prompt, &tokens, Int32(tokens.count))
        guard count > 0 else { return [] }
        return [previous] + tokens.prefix(Int(count)).suffix(100)
    }

    private func decode(_ tokens: [Int32], past: Int, state: WhisperLibrary.State) throws(Failure) {
        let status = tokens.withUnsafeBufferPointer { library.decode(context, state, $0.baseAddress!, Int32($0.count), Int32(past), 1) }
        guard status == 0 else { throw Failure(description: "whisper.cpp could not decode (\(status))") }
    }

    /// The softmax (or its log) of the last decoded token's logits: `row` of the last decode's rows
    /// (whisper.cpp fills only the last token's).
    private func probabilities(state: WhisperLibrary.State, row index: Int, log: Bool = false) -> [Float] {
        guard let logits = library.logits(state) else { return [Float](repeating: 0, count: Int(vocabulary)) }
        let row = UnsafeBufferPointer(start: logits + index * Int(vocabulary), count: Int(vocabulary))
        let top = row.max() ?? 0
        let total = row.reduce(Float(0)) { $0 + exp($1 - top) }
        return log ? row.map { $0 - top - Foundation.log(total) } : row.map { exp($0 - top) / total }
    }

    private func release(_ state: WhisperLibrary.State) {
        let address = Int(bitPattern: state)
        idleStates.withLock { $0.append(OpaquePointer(bitPattern: address)!) }
    }

    private func takeState() throws(Failure) -> WhisperLibrary.State {
        if let state = idleStates.withLock({ $0.popLast() }) { return state }
        guard let state = library.initState(context) else { throw Failure(description: "whisper.cpp could not make a decoder state") }
        return state
    }
}
