import Foundation
import Synchronization

/// Smart Turn v3.2 (BSD-2-Clause, Daily; `make deps` takes the model out of the `pipecat-ai`
/// wheel into `.deps/smart-turn/`): the last 8 s of a caller's audio in, the probability that
/// their turn is complete out. One model per process, shared by every call; evaluations run on
/// its own blocking lane, never on an event loop (10–18 ms of features and 25–100 ms of inference
/// by machine, `make bench`'s `turns` suite).
public final class SmartTurnModel: Sendable {
    public typealias Failure = ONNXRuntime.Failure

    private let runtime: ONNXRuntime
    private let session: ONNXSession
    private let output: Int
    private let mel = WhisperLogMel()
    /// Where evaluations run: one lane (an evaluation is rare — once per pause — and a second
    /// lane would take a core from the calls' media).
    public let workers: BlockingWorkPool

    /// `modelPath` is `smart-turn-v3.2-cpu.onnx`; `onnxRuntimePath` the `libonnxruntime.so.*` to load.
    public init(modelPath: String, onnxRuntimePath: String, lanes: Int = 1) throws {
        guard FileManager.default.fileExists(atPath: modelPath) else {
            throw Failure(description: "Smart Turn is not installed: \(modelPath) is missing. Run `make deps`.")
        }
        runtime = try ONNXRuntime.shared(libraryPath: onnxRuntimePath)
        // Run as written, in floats: fused into int8 kernels on an AVX2 machine it cut callers off
        // on 41 of `make bench`'s 60 lines at 0.8, where it cut off 27 as written (and 25 fused on a
        // machine with VNNI) — the same model on every CPU, at ~100 ms an evaluation there, not ~72.
        session = try runtime.session(path: modelPath, threads: 1, preparation: ONNXRuntime.Preparation(fusesQuantizedOps: false))
        guard session.inputNames == ["input_features"] else {
            throw Failure(description: "not a Smart Turn v3 model: inputs \(session.inputNames.joined(separator: ", "))")
        }
        output = try session.outputIndex("logits")
        // In virtual time a verdict takes what it takes here on one core.
        workers = BlockingWorkPool(label: "voicebridge.smart-turn", width: max(1, lanes), capacity: max(1, lanes) * 32, virtualLatency: .milliseconds(40))
    }

    /// The files `make deps` installs, under `deps` (`.deps`): loaded once per process, and that
    /// one model (and its lane) serves every call system that asks — `auto` loads it by default.
    public static func installed(in deps: String) throws -> SmartTurnModel {
        let modelPath = "\(deps)/smart-turn/smart-turn-v3.2-cpu.onnx"
        return try loaded.withLock { loaded in
            if let model = loaded[modelPath] { return model }
            let runtime = ONNXRuntime.library(in: "\(deps)/moonshine") ?? "\(deps)/moonshine/libonnxruntime.so"
            let model = try SmartTurnModel(modelPath: modelPath, onnxRuntimePath: runtime)
            loaded[modelPath] = model
            return model
        }
    }

    private static let loaded = Mutex<[String: SmartTurnModel]>([:])

    /// The probability that the turn in `audio` (16 kHz, −1…1, its last 8 s read) is complete,
    /// computed on the model's lane; throws `BlockingWorkPool.Overloaded` when too many wait,
    /// `BlockingWorkPool.TooLate` when it has not answered within `limit`.
    public func completion(of audio: [Float], within limit: Duration? = nil) async throws -> Float {
        try await workers.run(within: limit) { [self] in try completionNow(audio) }
    }

    /// The same on the calling thread (benchmarks time the parts).
    public func completionNow(_ audio: [Float]) throws -> Float {
        try infer(mel.features(audio))
    }

    /// The model on features already computed (80 × 800, mel-major).
    public func infer(_ features: [Float]) throws -> Float {
        let tensor = try runtime.tensor(features, shape: [1, Int64(WhisperLogMel.melBins), Int64(WhisperLogMel.frames)], type: .float)
        let outputs = try session.run([tensor])
        return try outputs[output].withElements(as: Float.self) { $0.first ?? 0 }
    }
}
