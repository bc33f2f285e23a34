import Foundation

/// One loaded model. `run` is thread-safe in onnxruntime, so one session serves every call; what
/// a call keeps between runs (recurrent state, a decoder's cache) lives in the values it passes.
public final class ONNXSession: @unchecked Sendable {
    public let inputNames: [String]
    public let outputNames: [String]
    private let runtime: ONNXRuntime
    private let pointer: OpaquePointer
    /// The names as C strings, alive as long as the session.
    private let inputCNames: [UnsafePointer<CChar>?]
    private let outputCNames: [UnsafePointer<CChar>?]

    init(runtime: ONNXRuntime, pointer: OpaquePointer) throws {
        self.runtime = runtime
        self.pointer = pointer
        func names(count countIndex: Int, name nameIndex: Int) throws -> [String] {
            var count = 0, allocator: OpaquePointer?
            try runtime.check(runtime.entry(countIndex, as: ONNXRuntime.GetCount.self)(pointer, &count), "SessionGet…Count")
            try runtime.check(runtime.entry(78, as: ONNXRuntime.GetAllocator.self)(&allocator), "GetAllocatorWithDefaultOptions")
            let getName = runtime.entry(nameIndex, as: ONNXRuntime.GetName.self)
            let free = runtime.entry(76, as: ONNXRuntime.AllocatorFree.self)
            return try (0..<count).map { index in
                var name: UnsafeMutablePointer<CChar>?
                try runtime.check(getName(pointer, index, allocator, &name), "SessionGet…Name")
                defer { _ = free(allocator, name) }
                return name.map { String(cString: $0) } ?? ""
            }
        }
        inputNames = try names(count: 30, name: 36)
        outputNames = try names(count: 31, name: 37)
        inputCNames = inputNames.map { UnsafePointer(strdup($0)) }
        outputCNames = outputNames.map { UnsafePointer(strdup($0)) }
    }

    deinit {
        runtime.entry(95, as: ONNXRuntime.Release.self)(pointer)
        for name in inputCNames + outputCNames { free(UnsafeMutablePointer(mutating: name)) }
    }

    /// Where `name` is among the inputs; throws naming the model's inputs when it is not there.
    public func inputIndex(_ name: String) throws -> Int {
        guard let index = inputNames.firstIndex(of: name) else {
            throw ONNXRuntime.Failure(description: "the model has no input \(name) (it has \(inputNames.joined(separator: ", ")))")
        }
        return index
    }

    /// Where `name` is among the outputs; throws naming the model's outputs when it is not there.
    public func outputIndex(_ name: String) throws -> Int {
        guard let index = outputNames.firstIndex(of: name) else {
            throw ONNXRuntime.Failure(description: "the model has no output \(name) (it has \(outputNames.joined(separator: ", ")))")
        }
        return index
    }

    /// Runs the model on `inputs`, one per input in `inputNames`' order; returns every output in
    /// `outputNames`' order.
    public func run(_ inputs: [ONNXValue]) throws -> [ONNXValue] {
        guard inputs.count == inputNames.count else {
            throw ONNXRuntime.Failure(description: "the model takes \(inputNames.count) inputs, \(inputs.count) given")
        }
        let values: [OpaquePointer?] = inputs.map(\.pointer)
        var outputs = [OpaquePointer?](repeating: nil, count: outputNames.count)
        let status = inputCNames.withUnsafeBufferPointer { inNames in
            outputCNames.withUnsafeBufferPointer { outNames in
                values.withUnsafeBufferPointer { inValues in
                    runtime.run(pointer, nil, inNames.baseAddress!, inValues.baseAddress!, inputs.count,
                                outNames.baseAddress!, outputNames.count, &outputs)
                }
            }
        }
        let owned = outputs.compactMap { $0.map { ONNXValue(runtime: runtime, pointer: $0) } }
        try runtime.check(status, "Run")
        guard owned.count == outputNames.count else { throw ONNXRuntime.Failure(description: "Run returned \(owned.count) of \(outputNames.count) outputs") }
        return owned
    }
}
