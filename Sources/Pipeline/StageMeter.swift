import Synchronization

/// What one stage of one call did: frames in and out, frames it dropped, the high-water mark of
/// the queue in front of it (queues only), and the time spent inside it.
///
/// Processing time is measured on one frame in `timingInterval` (a clock read costs about as much
/// as a small stage): `timedFrames` says how many frames `processingNanoseconds` covers, so the
/// mean per frame is their ratio. A stage has one writer at a time (its call's side, which runs
/// under that side's lock or in its one task), so counts are plain loads and stores of atomics
/// — no locked read-modify-write on the media path — and `/metrics` can read them live.
public final class StageMeter: Sendable {
    public struct Snapshot: Sendable, Equatable, Codable {
        public var stage: String
        public var side: String
        public var framesIn = 0
        public var framesOut = 0
        public var drops = 0
        public var queueHighWater = 0
        public var timedFrames = 0
        public var processingNanoseconds = 0

        public init(stage: String, side: String) {
            self.stage = stage
            self.side = side
        }

        public var microsecondsPerFrame: Double {
            timedFrames == 0 ? 0 : Double(processingNanoseconds) / Double(timedFrames) / 1000
        }

        /// Adds another call's figures for the same stage (high water: the larger).
        public mutating func add(_ other: Snapshot) {
            framesIn += other.framesIn
            framesOut += other.framesOut
            drops += other.drops
            queueHighWater = max(queueHighWater, other.queueHighWater)
            timedFrames += other.timedFrames
            processingNanoseconds += other.processingNanoseconds
        }

        enum CodingKeys: String, CodingKey {
            case stage, side
            case framesIn = "frames_in", framesOut = "frames_out", drops
            case queueHighWater = "queue_high_water", timedFrames = "timed_frames"
            case processingNanoseconds = "processing_ns"
        }
    }

    /// A prime, so that the timed frames pass through every phase of a stage whose work comes in
    /// a cycle of frames: Silero's 32-ms windows complete on 5 of every 8 20-ms frames, and with
    /// 16 the timed frame was never one of them (the VAD showed ~0.01 CPU s a call minute).
    public static let timingInterval = 17

    public let stage: String
    public let side: String
    private let framesIn = Atomic<Int>(0)
    private let framesOut = Atomic<Int>(0)
    private let drops = Atomic<Int>(0)
    private let timedFrames = Atomic<Int>(0)
    private let nanoseconds = Atomic<Int>(0)
    /// For a queue: its own counters, read when a snapshot is taken.
    private let queue: (@Sendable () -> BoundedQueueCounters)?

    public init(stage: String, side: String, queue: (@Sendable () -> BoundedQueueCounters)? = nil) {
        self.stage = stage
        self.side = side
        self.queue = queue
    }

    /// Whether the next input (number `framesIn`) is one of the timed ones.
    @inlinable
    public func shouldTime(frame: Int) -> Bool { frame % Self.timingInterval == 0 }

    public func recordIn() -> Int { Self.bump(framesIn, by: 1) }
    public func recordOut(_ count: Int) { if count > 0 { Self.bump(framesOut, by: count) } }
    public func recordDrop(_ count: Int = 1) { Self.bump(drops, by: count) }
    public func recordTime(nanoseconds elapsed: Int) {
        Self.bump(timedFrames, by: 1)
        Self.bump(nanoseconds, by: elapsed)
    }

    /// Single-writer increment; returns the value before.
    @inline(__always) @discardableResult
    private static func bump(_ counter: borrowing Atomic<Int>, by amount: Int) -> Int {
        let before = counter.load(ordering: .relaxed)
        counter.store(before &+ amount, ordering: .relaxed)
        return before
    }

    public var snapshot: Snapshot {
        var s = Snapshot(stage: stage, side: side)
        if let queue {
            let c = queue()
            s.framesIn = c.enqueued
            s.framesOut = c.dequeued
            s.drops = c.dropped
            s.queueHighWater = c.highWater
            return s
        }
        s.framesIn = framesIn.load(ordering: .relaxed)
        s.framesOut = framesOut.load(ordering: .relaxed)
        s.drops = drops.load(ordering: .relaxed)
        s.timedFrames = timedFrames.load(ordering: .relaxed)
        s.processingNanoseconds = nanoseconds.load(ordering: .relaxed)
        return s
    }
}

public typealias BoundedQueueCounters = (enqueued: Int, dequeued: Int, dropped: Int, highWater: Int)

/// A stage with a meter around it: `meters.stage("vad", VADStage())` in a declaration.
///
/// The time of a timed frame excludes what the stages after it spent inside `emit`, so each
/// stage's figure is its own work.
public struct MeteredStage<Inner: PipelineStage>: PipelineStage {
    public var inner: Inner
    public let meter: StageMeter

    @inlinable
    public init(inner: Inner, meter: StageMeter) {
        self.inner = inner
        self.meter = meter
    }

    @inlinable
    public mutating func process(_ input: Inner.Input, emit: (Inner.Output) -> Void) {
        let number = meter.recordIn()
        var count = 0
        guard meter.shouldTime(frame: number) else {
            inner.process(input) { count += 1; emit($0) }
            meter.recordOut(count)
            return
        }
        var downstream: Int64 = 0
        let start = MonotonicClock.nanoseconds()
        inner.process(input) { output in
            count += 1
            let before = MonotonicClock.nanoseconds()
            emit(output)
            downstream += MonotonicClock.nanoseconds() - before
        }
        meter.recordTime(nanoseconds: Int(MonotonicClock.nanoseconds() - start - downstream))
        meter.recordOut(count)
    }

    @inlinable
    public mutating func handle(_ control: ControlEvent, emit: (Inner.Output) -> Void) {
        var count = 0
        inner.handle(control) { count += 1; emit($0) }
        meter.recordOut(count)
    }
}

/// The meters of one call's pipeline, in declaration order, caller side then agent side.
public final class PipelineMeters: Sendable {
    private let meters = Mutex<[StageMeter]>([])

    public init() {}

    /// Wraps `stage` in a meter named `name` on `side` ("caller" or "agent").
    public func stage<S: PipelineStage>(_ name: String, side: String, _ stage: S) -> MeteredStage<S> {
        let meter = StageMeter(stage: name, side: side)
        meters.withLock { $0.append(meter) }
        return MeteredStage(inner: stage, meter: meter)
    }

    /// A bounded queue of the path, shown with the stages: its in/out, drops and high water.
    public func queue(_ name: String, side: String, counters: @escaping @Sendable () -> BoundedQueueCounters) {
        meters.withLock { $0.append(StageMeter(stage: name, side: side, queue: counters)) }
    }

    public var snapshots: [StageMeter.Snapshot] { meters.withLock { $0.map(\.snapshot) } }
}
