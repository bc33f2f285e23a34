import Testing
@testable import Pipeline

/// A stage's metered time covers its work wherever in a cycle of frames the work falls.
struct StageMeterTests {
    /// Works for `work` on every `period`-th frame, at `phase`, and passes each frame on.
    struct Periodic: PipelineStage {
        let period: Int, phase: Int, work: Int64
        var frame = 0

        mutating func process(_ input: Int, emit: (Int) -> Void) {
            defer { frame += 1 }
            if frame % period == phase {
                let until = MonotonicClock.nanoseconds() + work
                while MonotonicClock.nanoseconds() < until {}
            }
            emit(input)
        }
    }

    /// Like Silero's windows (5 of every 8 frames), work in a cycle of 8 frames: at every phase the
    /// timed frames meet it in proportion, so the mean per frame is at least half the true one
    /// (a loaded machine only lengthens the measured spins).
    @Test(arguments: 0..<8) func workInACycleOfFramesIsMeteredAtEveryPhase(phase: Int) {
        let work: Int64 = 200_000   // 200 µs on every 8th frame: 25 µs a frame on average
        var stage = MeteredStage(inner: Periodic(period: 8, phase: phase, work: work), meter: StageMeter(stage: "periodic", side: "caller"))
        for n in 0..<(StageMeter.timingInterval * 8 * 4) { stage.process(n) { _ in } }
        let mean = stage.meter.snapshot.microsecondsPerFrame
        #expect(mean >= 12.5, "the work's phase \(phase) is among the timed frames: \(mean) µs a frame")
    }
}
