import Foundation
import Synchronization
import Testing
import TestLanes
@testable import Pipeline

/// libsoxr keeps process-wide state (the DFT table its filter design shares, behind a lazily
/// initialised readers/writer lock), so resamplers made, flushed and freed on many threads at once
/// must neither hang nor change each other's output. Output is deterministic (no dither), so every
/// concurrent run must equal a run made alone.
///
/// In this process libsoxr's table was set up long before (by earlier tests), so this cannot reach
/// the race of the very first creations (issue 35); `Tests/e2e/suite-concurrent-start.sh` starts
/// fresh servers for that.
@Suite struct ResamplerConcurrencyTests {
    static let threads = 8
    static let rounds = 30

    /// A sine through one resampler as a call feeds it: 20 ms chunks, a flush in the middle (a
    /// barge-in redesigns the filter with `soxr_clear`), then the end of the stream.
    static func converted(_ pair: (Int, Int)) throws -> [Int16] {
        let resampler = try Resampler(from: pair.0, to: pair.1)
        let input = ResamplerTests.sine(frequency: 440, rate: pair.0, seconds: 0.2)
        let half = input.count / 2
        return ResamplerTests.streamed(Array(input[..<half]), resampler) + ResamplerTests.streamed(Array(input[half...]), resampler)
    }

    @Test func resamplersMadeUsedAndFreedOnManyThreadsAtOnceNeitherHangNorDisturbEachOther() throws {
        let pairs = ResamplerTests.conversions
        let expected = try pairs.map(Self.converted)
        let mismatches = Mutex<[String]>([])
        let finished = DispatchGroup()
        for round in 0..<Self.rounds {
            // Every thread waits at the gate, so all creations of a round start together; the
            // round's resamplers are all freed before the next one (the live count falls to zero).
            let gate = DispatchSemaphore(value: 0)
            for n in 0..<Self.threads {
                finished.enter()
                Thread.detachNewThread {
                    defer { finished.leave() }
                    gate.wait()
                    let k = (n + round) % pairs.count
                    do {
                        let output = try Self.converted(pairs[k])
                        if output != expected[k] { mismatches.withLock { $0.append("round \(round) thread \(n) \(pairs[k])") } }
                    } catch {
                        mismatches.withLock { $0.append("round \(round) thread \(n): \(error)") }
                    }
                }
            }
            for _ in 0..<Self.threads { gate.signal() }
            // A deadlock inside libsoxr leaves the threads stuck; fail instead of hanging the suite.
            let done = finished.wait(timeout: .now() + 60)
            try #require(done == .success, "round \(round): resampler threads still running after 60 s (libsoxr deadlock)")
        }
        #expect(mismatches.withLock { $0 } == [])
    }

    @Test func onX86ProcessingRunsOnTheSIMDEngineThatNeedsNoLock() throws {
        let resampler = try Resampler(from: 8000, to: 16000)
        // Every x86-64 CPU has SSE, so libsoxr picks its SIMD engine: processing runs unlocked.
        #expect(resampler.engine == "cr32s")
    }
}
