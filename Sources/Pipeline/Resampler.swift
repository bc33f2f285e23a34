import CSoxr

/// A streaming sample-rate converter over libsoxr, mono 16-bit in and out.
///
/// State is kept across calls, so audio cut into 20 ms chunks comes out exactly as if it had been
/// converted in one piece; `flush()` drains the filter's tail at end of stream. Dither is off so
/// output is deterministic. One owner at a time: a resampler moves between tasks, it is not shared.
public final class Resampler: @unchecked Sendable {
    public enum Quality: Sendable {
        /// Cubic interpolation: lowest delay and cost, audible aliasing on wideband input.
        case quick
        /// libsoxr's "low" 16-bit recipe, minimum phase, small DFT blocks: filters aliasing properly
        /// and holds back at most about 30 ms of a stream fed in 20 ms chunks (measured in the tests).
        case voice
        /// libsoxr's "high" 20-bit linear-phase recipe: best quality, holds back 100 ms or more.
        case high

        var spec: soxr_quality_spec_t {
            switch self {
            case .quick: soxr_quality_spec(UInt(SOXR_QQ), 0)
            case .voice: soxr_quality_spec(UInt(SOXR_LQ) | UInt(SOXR_MINIMUM_PHASE), 0)
            case .high: soxr_quality_spec(UInt(SOXR_HQ), 0)
            }
        }
    }

    public struct CreationError: Error, CustomStringConvertible {
        public let description: String
    }

    public let inputRate: Int
    public let outputRate: Int
    private let handle: soxr_t
    private var output: [Int16] = []

    public init(from inputRate: Int, to outputRate: Int, quality: Quality = .voice) throws {
        precondition(inputRate > 0 && outputRate > 0)
        var error: soxr_error_t?
        var io = soxr_io_spec(SOXR_INT16_I, SOXR_INT16_I)
        io.flags = UInt(SOXR_NO_DITHER)
        var quality = quality.spec
        var runtime = soxr_runtime_spec(1)
        // libsoxr filters in DFT blocks; the default 1024-point minimum makes it emit 20 ms input in
        // bursts up to 60 ms late. 256 points keeps it under 30 ms at a small cost in CPU.
        runtime.log2_min_dft_size = 8
        guard let handle = soxr_create(Double(inputRate), Double(outputRate), 1, &error, &io, &quality, &runtime), error == nil else {
            throw CreationError(description: "soxr_create \(inputRate)→\(outputRate): \(error.map { String(cString: $0) } ?? "failed")")
        }
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.handle = handle
    }

    deinit {
        soxr_delete(handle)
    }

    /// Output samples per input sample.
    public var ratio: Double { Double(outputRate) / Double(inputRate) }

    /// Samples currently held inside the filter (delay, in output samples).
    public var delay: Double { soxr_delay(handle) }

    /// Converts the next piece of the stream.
    public func process(_ input: [Int16]) -> [Int16] {
        input.withUnsafeBufferPointer { run(input: $0) }
    }

    /// Ends the stream: returns what the filter still holds. The resampler is then ready for a new stream.
    public func flush() -> [Int16] {
        let tail = run(input: nil)
        soxr_clear(handle)
        return tail
    }

    private func run(input: UnsafeBufferPointer<Int16>?) -> [Int16] {
        var result: [Int16] = []
        var consumed = 0
        let total = input?.count ?? 0
        let capacity = Int((Double(max(total, 64)) * ratio).rounded(.up)) + 64
        if output.count < capacity { output = [Int16](repeating: 0, count: capacity) }
        // soxr may take only part of the input, or have more output than fits: loop until both are done.
        repeat {
            var inputDone = 0
            var outputDone = 0
            let status: soxr_error_t? = output.withUnsafeMutableBufferPointer { out in
                if let input {
                    let rest = UnsafeRawPointer(input.baseAddress!.advanced(by: consumed))
                    return soxr_process(handle, rest, total - consumed, &inputDone, out.baseAddress, out.count, &outputDone)
                }
                return soxr_process(handle, nil, 0, nil, out.baseAddress, out.count, &outputDone)
            }
            precondition(status == nil, "soxr_process: \(String(cString: status!))")
            consumed += inputDone
            result.append(contentsOf: output[0..<outputDone])
            if outputDone < output.count && consumed >= total { break }
        } while true
        return result
    }
}
