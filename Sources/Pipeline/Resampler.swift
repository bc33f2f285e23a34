import CSoxr
import Foundation

/// A streaming sample-rate converter over libsoxr, mono 16-bit in and out.
///
/// State is kept across calls, so audio cut into 20 ms chunks comes out exactly as if it had been
/// converted in one piece; `flush()` drains the filter's tail at end of stream. Dither is off so
/// output is deterministic. One owner at a time: a resampler moves between tasks, it is not shared.
///
/// Thread safety of libsoxr 0.1.3 (read in its source): designing a filter (`soxr_create`, and
/// `soxr_clear`, which designs it again) uses one process-wide DFT table whose readers/writer lock
/// is itself initialised lazily with no synchronisation (`LSX_INIT_FFT_CACHE` in fft4g_cache.h:
/// check `FFT_LEN`, then `omp_init_lock` ×5). Two first creations at once initialise the locks
/// twice, one of them while the other thread holds them: the reader count is then wrong for the
/// life of the process, and the next filter that needs a larger table waits forever for a lock
/// nobody holds (the hang of issue 35), or the tables are freed under a reader (a crash). So every
/// call that can design a filter or free one takes `library`, a process-wide lock held only for
/// the library's own CPU work (0.1–0.2 ms a creation here, no I/O): the cooperative pool waits at
/// most for the creations queued ahead of it. `soxr_process` on the SIMD engines (`cr32s`, `cr64s`,
/// which every x86-64 CPU gets) touches only the resampler's own state and runs without the lock; the plain engines (`cr32`, `cr64`: `SOXR_USE_SIMD=0` or an old CPU) transform through
/// the shared table while processing too, so their resamplers take the lock in `process` as well.
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
    /// libsoxr's engine for this resampler ("cr32s", "cr32", …).
    public let engine: String
    private let handle: soxr_t
    private let processesThroughSharedTable: Bool
    private var output: [Int16] = []

    /// Serialises every libsoxr call that touches the library's process-wide state (see above).
    static let library = NSLock()

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
        let created = Self.library.withLock { soxr_create(Double(inputRate), Double(outputRate), 1, &error, &io, &quality, &runtime) }
        guard let handle = created, error == nil else {
            if let created { Self.library.withLock { soxr_delete(created) } }
            throw CreationError(description: "soxr_create \(inputRate)→\(outputRate): \(error.map { String(cString: $0) } ?? "failed")")
        }
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.handle = handle
        engine = String(cString: soxr_engine(handle))
        processesThroughSharedTable = !engine.hasSuffix("s")
    }

    deinit {
        Self.library.withLock { soxr_delete(handle) }
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
        let status = Self.library.withLock { soxr_clear(handle) }   // designs the filter again
        precondition(status == nil, "soxr_clear: \(String(cString: status!))")
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
                func step() -> soxr_error_t? {
                    if let input {
                        let rest = UnsafeRawPointer(input.baseAddress!.advanced(by: consumed))
                        return soxr_process(handle, rest, total - consumed, &inputDone, out.baseAddress, out.count, &outputDone)
                    }
                    return soxr_process(handle, nil, 0, nil, out.baseAddress, out.count, &outputDone)
                }
                return processesThroughSharedTable ? Self.library.withLock { step() } : step()
            }
            precondition(status == nil, "soxr_process: \(String(cString: status!))")
            consumed += inputDone
            result.append(contentsOf: output[0..<outputDone])
            if outputDone < output.count && consumed >= total { break }
        } while true
        return result
    }
}
