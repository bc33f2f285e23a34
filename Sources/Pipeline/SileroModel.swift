import Foundation

/// Silero VAD v6 (MIT; the `silero-vad` wheel's `silero_vad.onnx`, installed by `make deps`)
/// run through onnxruntime's C API, loaded at run time. No header ships with onnxruntime's
/// library, so the few `OrtApi` entries used are called by their index in the table, which only
/// grows at the end (PROTOCOLS-2.md §7.4). One model per process; `Run` is thread-safe, and each
/// call keeps its own recurrent state in a `SileroVoiceClassifier`.
public final class SileroModel: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// 8 kHz: 256-sample windows (32 ms) with the previous input's last 32 samples in front.
    public static let windowSamples = 256
    public static let contextSamples = 32
    public static let stateCount = 2 * 128

    // OrtApi entries (index → signature); all return an OrtStatus* (nil = success) unless noted.
    private typealias GetErrorMessage = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    private typealias CreateEnv = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    private typealias CreateSession = @convention(c) (OpaquePointer?, UnsafePointer<CChar>, OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    private typealias Run = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<OpaquePointer?>, Int,
                                            UnsafePointer<UnsafePointer<CChar>?>, Int, UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    private typealias CreateSessionOptions = @convention(c) (UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    private typealias SetThreads = @convention(c) (OpaquePointer?, Int32) -> OpaquePointer?
    private typealias CreateTensor = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer, Int, UnsafePointer<Int64>?, Int, Int32,
                                                     UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    private typealias GetTensorData = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> OpaquePointer?
    private typealias CreateCPUMemoryInfo = @convention(c) (Int32, Int32, UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    private typealias Release = @convention(c) (OpaquePointer?) -> Void

    private struct API {
        let errorMessage: GetErrorMessage, run: Run, createTensor: CreateTensor, tensorData: GetTensorData
        let releaseStatus: Release, releaseValue: Release

        /// Throws the message of a failed call's status (nil is success), releasing the status.
        func check(_ status: OpaquePointer?, _ what: String) throws {
            guard let status else { return }
            defer { releaseStatus(status) }
            throw Failure(description: "\(what): \(errorMessage(status).map { String(cString: $0) } ?? "unknown error")")
        }
    }

    private let api: API
    private let session: OpaquePointer
    private let memoryInfo: OpaquePointer
    /// The names the model's graph uses, as C strings that live as long as the model.
    private let inputNames: [UnsafePointer<CChar>?] = ["input", "state", "sr"].map { (name: String) in UnsafePointer(strdup(name)) }
    private let outputNames: [UnsafePointer<CChar>?] = ["output", "stateN"].map { (name: String) in UnsafePointer(strdup(name)) }

    /// `modelPath` is `silero_vad.onnx`; `onnxRuntimePath` the `libonnxruntime.so.*` to load.
    public init(modelPath: String, onnxRuntimePath: String) throws {
        for path in [modelPath, onnxRuntimePath] where !FileManager.default.fileExists(atPath: path) {
            throw Failure(description: "the neural VAD is not installed: \(path) is missing. Run `make deps`.")
        }
        guard let library = dlopen(onnxRuntimePath, RTLD_NOW | RTLD_GLOBAL) else {
            throw Failure(description: "cannot load \(onnxRuntimePath): \(String(cString: dlerror()))")
        }
        typealias GetAPIBase = @convention(c) () -> UnsafePointer<UnsafeRawPointer?>?
        typealias GetAPI = @convention(c) (UInt32) -> UnsafePointer<UnsafeRawPointer?>?
        guard let symbol = dlsym(library, "OrtGetApiBase"), let base = unsafeBitCast(symbol, to: GetAPIBase.self)(),
              let getAPIPointer = base[0], let table = unsafeBitCast(getAPIPointer, to: GetAPI.self)(17) else {
            throw Failure(description: "\(onnxRuntimePath) offers no onnxruntime C API version 17")
        }
        func entry<F>(_ index: Int, as: F.Type) -> F { unsafeBitCast(table[index]!, to: F.self) }
        api = API(errorMessage: entry(2, as: GetErrorMessage.self), run: entry(9, as: Run.self), createTensor: entry(49, as: CreateTensor.self),
                  tensorData: entry(51, as: GetTensorData.self), releaseStatus: entry(93, as: Release.self), releaseValue: entry(96, as: Release.self))
        let api = self.api
        func check(_ status: OpaquePointer?, _ what: String) throws { try api.check(status, what) }
        var env: OpaquePointer?, options: OpaquePointer?, session: OpaquePointer?, memory: OpaquePointer?
        try check(entry(3, as: CreateEnv.self)(3, "voicebridge-vad", &env), "CreateEnv")
        try check(entry(10, as: CreateSessionOptions.self)(&options), "CreateSessionOptions")
        try check(entry(24, as: SetThreads.self)(options, 1), "SetIntraOpNumThreads")
        try check(entry(25, as: SetThreads.self)(options, 1), "SetInterOpNumThreads")
        try check(entry(7, as: CreateSession.self)(env, modelPath, options, &session), "CreateSession(\(modelPath))")
        entry(100, as: Release.self)(options)
        try check(entry(69, as: CreateCPUMemoryInfo.self)(0, 0, &memory), "CreateCpuMemoryInfo")
        guard let session, let memory else { throw Failure(description: "onnxruntime returned no session") }
        self.session = session
        self.memoryInfo = memory
    }

    /// The files `make deps` installs, under `deps` (`.deps`).
    public static func installed(in deps: String) throws -> SileroModel {
        let runtime = onnxRuntimeLibrary(in: "\(deps)/moonshine") ?? "\(deps)/moonshine/libonnxruntime.so"
        return try SileroModel(modelPath: "\(deps)/silero_vad/data/silero_vad.onnx", onnxRuntimePath: runtime)
    }

    /// The `libonnxruntime.so.<version>` in `directory` (moonshine-cpp ships one), or nil.
    public static func onnxRuntimeLibrary(in directory: String) -> String? {
        (try? FileManager.default.contentsOfDirectory(atPath: directory))?.first { $0.hasPrefix("libonnxruntime.so") }
            .map { (directory as NSString).appendingPathComponent($0) }
    }

    /// Speech probability of `input` (context + window, floats in −1…1), updating `state`.
    func probability(input: inout [Float], state: inout [Float]) throws -> Float {
        var sampleRate: Int64 = 8000
        var inputShape: [Int64] = [1, Int64(input.count)], stateShape: [Int64] = [2, 1, 128]
        var values: [OpaquePointer?] = [nil, nil, nil]
        defer { for value in values where value != nil { api.releaseValue(value) } }
        func check(_ status: OpaquePointer?) throws { try api.check(status, "silero") }
        // The tensors borrow the arrays' storage (no copy), so everything happens inside the pins.
        return try input.withUnsafeMutableBytes { inputBytes in
            try state.withUnsafeMutableBytes { stateBytes in
                try withUnsafeMutableBytes(of: &sampleRate) { rateBytes in
                    try check(api.createTensor(memoryInfo, inputBytes.baseAddress!, inputBytes.count, &inputShape, 2, 1, &values[0]))
                    try check(api.createTensor(memoryInfo, stateBytes.baseAddress!, stateBytes.count, &stateShape, 3, 1, &values[1]))
                    try check(api.createTensor(memoryInfo, rateBytes.baseAddress!, 8, nil, 0, 7, &values[2]))
                    var outputs: [OpaquePointer?] = [nil, nil]
                    defer { for output in outputs where output != nil { api.releaseValue(output) } }
                    try inputNames.withUnsafeBufferPointer { inNames in
                        try outputNames.withUnsafeBufferPointer { outNames in
                            try values.withUnsafeBufferPointer { inValues in
                                try check(api.run(session, nil, inNames.baseAddress!, inValues.baseAddress!, 3, outNames.baseAddress!, 2, &outputs))
                            }
                        }
                    }
                    var probability: UnsafeMutableRawPointer?, nextState: UnsafeMutableRawPointer?
                    try check(api.tensorData(outputs[0], &probability))
                    try check(api.tensorData(outputs[1], &nextState))
                    guard let probability, let nextState else { throw Failure(description: "silero: no output") }
                    let next = nextState.assumingMemoryBound(to: Float.self)
                    for i in 0..<Self.stateCount { stateBytes.storeBytes(of: next[i], toByteOffset: i * 4, as: Float.self) }
                    return probability.assumingMemoryBound(to: Float.self).pointee
                }
            }
        }
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
            var input = context + pending[0..<SileroModel.windowSamples]
            context = Array(input.suffix(SileroModel.contextSamples))
            pending.removeFirst(SileroModel.windowSamples)
            probability = (try? model.probability(input: &input, state: &state)) ?? probability
        }
        return probability
    }
}
