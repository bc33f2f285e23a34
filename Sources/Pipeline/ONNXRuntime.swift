import Foundation
import Synchronization

/// onnxruntime's C API, loaded at run time from the `libonnxruntime.so.*` that moonshine-cpp ships
/// (`make deps` puts it in `.deps/moonshine`). No header ships with the library, so the entries
/// used are called by their index in `OrtApi`, a table that only grows at the end
/// (PROTOCOLS-2.md §7.4; the indices follow `onnxruntime_c_api.h`'s order). The library picks its
/// kernels for the CPU it runs on, so this runs wherever onnxruntime does.
///
/// One per library path and process (`shared(libraryPath:)`); sessions and values made from it
/// are used by Silero VAD and Moonshine speech-to-text.
public final class ONNXRuntime: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// `ONNXTensorElementDataType` values used here.
    public enum ElementType: Int32 {
        case float = 1, bool = 9, int64 = 7
    }

    typealias GetErrorMessage = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    typealias CreateEnv = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    typealias CreateSession = @convention(c) (OpaquePointer?, UnsafePointer<CChar>, OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    typealias Run = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<OpaquePointer?>, Int,
                                    UnsafePointer<UnsafePointer<CChar>?>, Int, UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    typealias CreateSessionOptions = @convention(c) (UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    typealias SetThreads = @convention(c) (OpaquePointer?, Int32) -> OpaquePointer?
    typealias SetOptimizationLevel = @convention(c) (OpaquePointer?, Int32) -> OpaquePointer?
    typealias AddConfigEntry = @convention(c) (OpaquePointer?, UnsafePointer<CChar>, UnsafePointer<CChar>) -> OpaquePointer?
    typealias GetCount = @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int>) -> OpaquePointer?
    typealias GetName = @convention(c) (OpaquePointer?, Int, OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> OpaquePointer?
    typealias CreateTensor = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer, Int, UnsafePointer<Int64>?, Int, Int32,
                                             UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    typealias GetTensorData = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> OpaquePointer?
    typealias GetElementCount = @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int>) -> OpaquePointer?
    typealias GetTypeAndShape = @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    typealias CreateCPUMemoryInfo = @convention(c) (Int32, Int32, UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    typealias GetAllocator = @convention(c) (UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    typealias AllocatorFree = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> OpaquePointer?
    typealias Release = @convention(c) (OpaquePointer?) -> Void

    let errorMessage: GetErrorMessage, run: Run, createTensor: CreateTensor, tensorData: GetTensorData
    let typeAndShape: GetTypeAndShape, elementCount: GetElementCount
    let releaseStatus: Release, releaseValue: Release, releaseTypeAndShape: Release
    private let table: UnsafePointer<UnsafeRawPointer?>
    private let env: OpaquePointer
    let memoryInfo: OpaquePointer

    private static let loaded = Mutex<[String: ONNXRuntime]>([:])

    /// The runtime for `libraryPath`, loaded on first use and kept for the process.
    public static func shared(libraryPath: String) throws -> ONNXRuntime {
        try loaded.withLock { loaded in
            if let runtime = loaded[libraryPath] { return runtime }
            let runtime = try ONNXRuntime(libraryPath: libraryPath)
            loaded[libraryPath] = runtime
            return runtime
        }
    }

    /// The `libonnxruntime.so.<version>` in `directory` (moonshine-cpp ships one), or nil.
    public static func library(in directory: String) -> String? {
        (try? FileManager.default.contentsOfDirectory(atPath: directory))?.first { $0.hasPrefix("libonnxruntime.so") }
            .map { (directory as NSString).appendingPathComponent($0) }
    }

    private init(libraryPath: String) throws {
        guard FileManager.default.fileExists(atPath: libraryPath) else {
            throw Failure(description: "onnxruntime is not installed: \(libraryPath) is missing. Run `make deps`.")
        }
        guard let library = dlopen(libraryPath, RTLD_NOW | RTLD_GLOBAL) else {
            throw Failure(description: "cannot load \(libraryPath): \(String(cString: dlerror()))")
        }
        typealias GetAPIBase = @convention(c) () -> UnsafePointer<UnsafeRawPointer?>?
        typealias GetAPI = @convention(c) (UInt32) -> UnsafePointer<UnsafeRawPointer?>?
        guard let symbol = dlsym(library, "OrtGetApiBase"), let base = unsafeBitCast(symbol, to: GetAPIBase.self)(),
              let getAPIPointer = base[0], let table = unsafeBitCast(getAPIPointer, to: GetAPI.self)(17) else {
            throw Failure(description: "\(libraryPath) offers no onnxruntime C API version 17")
        }
        self.table = table
        func entry<F>(_ index: Int, as type: F.Type) -> F { Self.entry(table, index, as: type) }
        errorMessage = entry(2, as: GetErrorMessage.self)
        run = entry(9, as: Run.self)
        createTensor = entry(49, as: CreateTensor.self)
        tensorData = entry(51, as: GetTensorData.self)
        elementCount = entry(64, as: GetElementCount.self)
        typeAndShape = entry(65, as: GetTypeAndShape.self)
        releaseStatus = entry(93, as: Release.self)
        releaseValue = entry(96, as: Release.self)
        releaseTypeAndShape = entry(99, as: Release.self)
        var env: OpaquePointer?, memory: OpaquePointer?
        let createEnv = entry(3, as: CreateEnv.self), createMemoryInfo = entry(69, as: CreateCPUMemoryInfo.self)
        if let status = createEnv(3, "voicebridge", &env) { throw Self.failure(status, "CreateEnv", errorMessage, releaseStatus) }
        if let status = createMemoryInfo(0, 0, &memory) { throw Self.failure(status, "CreateCpuMemoryInfo", errorMessage, releaseStatus) }
        guard let env, let memory else { throw Failure(description: "onnxruntime returned no environment") }
        self.env = env
        self.memoryInfo = memory
    }

    func entry<F>(_ index: Int, as type: F.Type) -> F { Self.entry(table, index, as: type) }

    /// Entry `index` of the `OrtApi` table, as the C function type `F` it has there.
    private static func entry<F>(_ table: UnsafePointer<UnsafeRawPointer?>, _ index: Int, as: F.Type) -> F {
        unsafeBitCast(table[index]!, to: F.self)
    }

    private static func failure(_ status: OpaquePointer, _ what: String, _ message: GetErrorMessage, _ release: Release) -> Failure {
        defer { release(status) }
        return Failure(description: "\(what): \(message(status).map { String(cString: $0) } ?? "unknown error")")
    }

    /// Throws the message of a failed call's status (nil is success), releasing the status.
    func check(_ status: OpaquePointer?, _ what: @autoclosure () -> String) throws {
        guard let status else { return }
        throw Self.failure(status, what(), errorMessage, releaseStatus)
    }

    /// How onnxruntime prepares a model when it loads it. The default is onnxruntime's own.
    public struct Preparation: Sendable {
        /// Every graph optimisation onnxruntime has (`ORT_ENABLE_ALL`); when false, the basic ones
        /// only (constant folding, redundant nodes): for a model folded when it was installed, where
        /// the rest only cost load time (and, measured on Moonshine's decoder, made a step slower).
        public var allOptimizations = true
        /// Constant weights repacked for the CPU's matrix kernels at load, a second copy of them:
        /// it pays for large batches; a decoder run a token at a time gains nothing from it.
        public var prepacksWeights = true
        /// A quantised model's quantise–dequantise pairs fused into int8 kernels. Without VNNI
        /// (AVX2, AVX-512 without it) onnxruntime's u8×s8 kernels can saturate, which changes
        /// the model's answers; when false the pairs run as written, in floats.
        public var fusesQuantizedOps = true

        public init(allOptimizations: Bool = true, prepacksWeights: Bool = true, fusesQuantizedOps: Bool = true) {
            self.allOptimizations = allOptimizations
            self.prepacksWeights = prepacksWeights
            self.fusesQuantizedOps = fusesQuantizedOps
        }
    }

    /// A session for the model at `path` (`.onnx` or `.ort`). `threads` caps the threads one run
    /// uses; nil leaves onnxruntime's default (one per core).
    public func session(path: String, threads: Int32? = nil, preparation: Preparation = Preparation()) throws -> ONNXSession {
        guard FileManager.default.fileExists(atPath: path) else {
            throw Failure(description: "the model \(path) is missing. Run `make deps`.")
        }
        var options: OpaquePointer?, session: OpaquePointer?
        try check(entry(10, as: CreateSessionOptions.self)(&options), "CreateSessionOptions")
        defer { entry(100, as: Release.self)(options) }
        if let threads {
            try check(entry(24, as: SetThreads.self)(options, threads), "SetIntraOpNumThreads")
            try check(entry(25, as: SetThreads.self)(options, threads), "SetInterOpNumThreads")
        }
        if !preparation.allOptimizations {
            try check(entry(23, as: SetOptimizationLevel.self)(options, 1), "SetSessionGraphOptimizationLevel")   // ORT_ENABLE_BASIC
        }
        if !preparation.prepacksWeights {
            try check(entry(130, as: AddConfigEntry.self)(options, "session.disable_prepacking", "1"), "AddSessionConfigEntry")
        }
        if !preparation.fusesQuantizedOps {
            try check(entry(130, as: AddConfigEntry.self)(options, "session.disable_quant_qdq", "1"), "AddSessionConfigEntry")
        }
        try check(entry(7, as: CreateSession.self)(env, path, options, &session), "CreateSession(\(path))")
        guard let session else { throw Failure(description: "onnxruntime returned no session for \(path)") }
        return try ONNXSession(runtime: self, pointer: session)
    }

    /// A tensor holding a copy of `elements` in `shape` (empty shape: a scalar).
    public func tensor<Element: BitwiseCopyable>(_ elements: [Element], shape: [Int64], type: ElementType) throws -> ONNXValue {
        let bytes = max(1, elements.count * MemoryLayout<Element>.stride)
        let storage = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
        elements.withUnsafeBytes { storage.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        var value: OpaquePointer?
        do {
            let status = shape.withUnsafeBufferPointer { dimensions in
                createTensor(memoryInfo, storage, elements.count * MemoryLayout<Element>.stride, shape.isEmpty ? nil : dimensions.baseAddress,
                             shape.count, type.rawValue, &value)
            }
            try check(status, "CreateTensorWithDataAsOrtValue")
        } catch {
            storage.deallocate()
            throw error
        }
        return ONNXValue(runtime: self, pointer: value!, storage: storage)
    }
}

/// An `OrtValue` this process owns: released (with the bytes it borrows) when the last reference goes.
public final class ONNXValue: @unchecked Sendable {
    let runtime: ONNXRuntime
    let pointer: OpaquePointer
    private let storage: UnsafeMutableRawPointer?

    init(runtime: ONNXRuntime, pointer: OpaquePointer, storage: UnsafeMutableRawPointer? = nil) {
        self.runtime = runtime
        self.pointer = pointer
        self.storage = storage
    }

    deinit {
        runtime.releaseValue(pointer)
        storage?.deallocate()
    }

    /// The tensor's elements read as `Element` (the caller knows the model's type), valid while
    /// `body` runs.
    public func withElements<Element, Result>(as: Element.Type, _ body: (UnsafeBufferPointer<Element>) throws -> Result) throws -> Result {
        var info: OpaquePointer?, count = 0, data: UnsafeMutableRawPointer?
        try runtime.check(runtime.typeAndShape(pointer, &info), "GetTensorTypeAndShape")
        defer { runtime.releaseTypeAndShape(info) }
        try runtime.check(runtime.elementCount(info, &count), "GetTensorShapeElementCount")
        try runtime.check(runtime.tensorData(pointer, &data), "GetTensorMutableData")
        guard let data else { throw ONNXRuntime.Failure(description: "a tensor without data") }
        return try body(UnsafeBufferPointer(start: data.assumingMemoryBound(to: Element.self), count: count))
    }
}
