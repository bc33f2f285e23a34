import Foundation

/// Silero VAD v6 (MIT; the `silero-vad` wheel's `silero_vad.onnx`, installed by `make deps`)
/// run through `ONNXRuntime`. One model per process; runs are thread-safe, and each call keeps its
/// own recurrent state in a `SileroVoiceClassifier`.
public final class SileroModel: Sendable {
    public typealias Failure = ONNXRuntime.Failure

    /// 8 kHz: 256-sample windows (32 ms) with the previous input's last 32 samples in front.
    public static let windowSamples = 256
    public static let contextSamples = 32
    public static let stateCount = 2 * 128

    private let runtime: ONNXRuntime
    private let session: ONNXSession
    /// Where `input`, `state` and `sr` go among the model's inputs, and where `output` and
    /// `stateN` come among its outputs.
    private let inputOrder: [Int]
    private let probabilityOutput: Int, stateOutput: Int
    private let sampleRate: ONNXValue

    /// `modelPath` is `silero_vad.onnx`; `onnxRuntimePath` the `libonnxruntime.so.*` to load.
    public init(modelPath: String, onnxRuntimePath: String) throws {
        guard FileManager.default.fileExists(atPath: modelPath) else {
            throw Failure(description: "the neural VAD is not installed: \(modelPath) is missing. Run `make deps`.")
        }
        runtime = try ONNXRuntime.shared(libraryPath: onnxRuntimePath)
        session = try runtime.session(path: modelPath, threads: 1)
        inputOrder = try ["input", "state", "sr"].map(session.inputIndex)
        probabilityOutput = try session.outputIndex("output")
        stateOutput = try session.outputIndex("stateN")
        sampleRate = try runtime.tensor([Int64(8000)], shape: [], type: .int64)
    }

    /// The files `make deps` installs, under `deps` (`.deps`).
    public static func installed(in deps: String) throws -> SileroModel {
        let runtime = ONNXRuntime.library(in: "\(deps)/moonshine") ?? "\(deps)/moonshine/libonnxruntime.so"
        return try SileroModel(modelPath: "\(deps)/silero_vad/data/silero_vad.onnx", onnxRuntimePath: runtime)
    }

    /// Speech probability of `input` (context + window, floats in −1…1), updating `state`.
    func probability(input: [Float], state: inout [Float]) throws -> Float {
        var inputs = [ONNXValue](repeating: sampleRate, count: 3)
        inputs[inputOrder[0]] = try runtime.tensor(input, shape: [1, Int64(input.count)], type: .float)
        inputs[inputOrder[1]] = try runtime.tensor(state, shape: [2, 1, 128], type: .float)
        inputs[inputOrder[2]] = sampleRate
        let outputs = try session.run(inputs)
        state = try outputs[stateOutput].withElements(as: Float.self) { Array($0.prefix(Self.stateCount)) }
        return try outputs[probabilityOutput].withElements(as: Float.self) { $0.first ?? 0 }
    }
}

/// One call's Silero state: 20 ms frames in, a speech probability out for every 32 ms window
/// (the latest one stands for the frames in between).
public struct SileroVoiceClassifier: Sendable {
    let model: SileroModel
    private var state = [Float](repeating: 0, count: SileroModel.stateCount)
    private var context = [Float](repeating: 0, count: SileroModel.contextSamples)
    private var pending: [Float] = []
    public private(set) var probability: Float = 0

    public init(model: SileroModel) { self.model = model }

    /// Takes 8 kHz samples; returns the latest speech probability (0 until the first window).
    public mutating func process(_ samples: [Int16]) -> Float {
        pending += samples.map { Float($0) / 32768 }
        while pending.count >= SileroModel.windowSamples {
            let input = context + pending[0..<SileroModel.windowSamples]
            context = Array(input.suffix(SileroModel.contextSamples))
            pending.removeFirst(SileroModel.windowSamples)
            probability = (try? model.probability(input: input, state: &state)) ?? probability
        }
        return probability
    }
}
