import Foundation
import Pipeline

/// Speech-to-text with Moonshine base-en through the native library shipped in the `moonshine-cpp`
/// wheel (`make deps` puts it in `.deps/moonshine`). Loaded at run time: no build-time dependency,
/// and a clear error naming `make deps` when the files are missing.
///
/// One loaded model serves every call: onnxruntime sessions take concurrent runs, so
/// transcriptions run side by side on `workers`, one lane per core, off the cooperative pool.
public final class MoonshineTranscriber: Sendable {
    public static let sampleRate = 16_000

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private typealias LoadModel = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafePointer<CChar>, Int32) -> Int32
    private typealias Transcribe = @convention(c) (Int32, UnsafePointer<Float>, Int, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32
    private typealias FreeText = @convention(c) (UnsafeMutablePointer<CChar>?) -> Void

    private let handle: Int32
    private let transcribeFunction: Transcribe
    private let freeText: FreeText
    /// Where transcriptions run: one lane per core.
    public let workers: BlockingWorkPool

    /// `directory` holds `libmoonshine.so`, the onnxruntime library and `models/base-en/`.
    public init(directory: String, lanes: Int = ProcessInfo.processInfo.activeProcessorCount) throws {
        workers = BlockingWorkPool(label: "voicebridge.moonshine", width: max(1, lanes), capacity: max(1, lanes) * 16)
        let root = URL(fileURLWithPath: directory)
        let model = root.appendingPathComponent("models/base-en")
        let files = ["encoder_model.ort", "decoder_model_merged.ort", "tokenizer.bin"].map { model.appendingPathComponent($0).path }
        let library = root.appendingPathComponent("libmoonshine.so").path
        for path in files + [library] where !FileManager.default.fileExists(atPath: path) {
            throw Failure(description: "Moonshine is not installed: \(path) is missing. Run `make deps` (it installs moonshine-cpp into .deps/).")
        }
        if let missing = Self.missingCPUFeatures() {
            throw Failure(description: "Moonshine cannot run on this CPU: the libmoonshine.so in moonshine-cpp is built for AVX-512"
                + " and this CPU lacks \(missing.joined(separator: ", ")) (it would stop the process with SIGILL)."
                + " Use engine.mode realtime, cascade or stream, or a machine with AVX-512.")
        }
        // libmoonshine needs onnxruntime but carries no RUNPATH: load the bundled copy first, globally.
        if let runtime = SileroModel.onnxRuntimeLibrary(in: directory), dlopen(runtime, RTLD_NOW | RTLD_GLOBAL) == nil {
            throw Failure(description: "cannot load \(runtime): \(String(cString: dlerror()))")
        }
        guard let lib = dlopen(library, RTLD_NOW) else { throw Failure(description: "cannot load \(library): \(String(cString: dlerror()))") }
        guard let load = dlsym(lib, "moonshine_load_model"), let transcribe = dlsym(lib, "moonshine_transcribe"),
              let free = dlsym(lib, "moonshine_free_text") else {
            throw Failure(description: "\(library) lacks the moonshine_* functions")
        }
        let loadModel = unsafeBitCast(load, to: LoadModel.self)
        let handle = loadModel(files[0], files[1], files[2], 1)   // 1 = base
        guard handle >= 0 else { throw Failure(description: "moonshine_load_model failed (\(handle))") }
        self.handle = handle
        self.transcribeFunction = unsafeBitCast(transcribe, to: Transcribe.self)
        self.freeText = unsafeBitCast(free, to: FreeText.self)
    }

    /// The AVX-512 features every moonshine-cpp wheel's `libmoonshine.so` (0.1.1 to 0.1.4) is compiled
    /// with (x86-64-v4) that this CPU lacks, from the kernel's `/proc/cpuinfo`; nil: none missing, or
    /// not an x86 Linux machine.
    static func missingCPUFeatures(cpuinfo: String? = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) -> [String]? {
        guard let flagsLine = cpuinfo?.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return nil }
        let flags = Set(flagsLine.split(separator: " ").map(String.init))
        let missing = ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"].filter { !flags.contains($0) }
        return missing.isEmpty ? nil : missing
    }

    /// Transcribes 16-bit samples at 16 kHz on a worker lane; throws `BlockingWorkPool.Overloaded`
    /// when more transcriptions are waiting than the pool takes.
    public func transcribe(pcm16k samples: [Int16]) async throws -> String {
        try await workers.run { [self] in try transcribeNow(samples.map { Float($0) / 32768 }) }
    }

    /// Transcribes 16 kHz float samples in [-1, 1] on the calling thread.
    private func transcribeNow(_ samples: [Float]) throws -> String {
        guard !samples.isEmpty else { return "" }
        var text: UnsafeMutablePointer<CChar>?
        let status = samples.withUnsafeBufferPointer { transcribeFunction(handle, $0.baseAddress!, $0.count, &text) }
        guard status == 0 else { throw Failure(description: "moonshine_transcribe failed (\(status))") }
        defer { freeText(text) }
        return text.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }
}
