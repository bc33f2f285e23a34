import Synchronization

/// What a stage reports: frames in and out, drops and high-water mark of its input edge, and
/// the time spent inside `process`.
public final class StageCounters: Sendable {
    public struct Snapshot: Sendable, Equatable {
        public var name: String
        public var framesIn: Int
        public var framesOut: Int
        public var drops: Int
        public var queueHighWater: Int
        public var processingNanoseconds: Int

        public var microsecondsPerFrame: Double {
            framesIn == 0 ? 0 : Double(processingNanoseconds) / Double(framesIn) / 1000
        }
    }

    public let name: String
    private let framesIn = Atomic<Int>(0)
    private let framesOut = Atomic<Int>(0)
    private let nanoseconds = Atomic<Int>(0)
    private let drops: @Sendable () -> (dropped: Int, highWater: Int)

    init(name: String, input: @escaping @Sendable () -> (dropped: Int, highWater: Int)) {
        self.name = name
        self.drops = input
    }

    func record(inputs: Int, outputs: Int, nanoseconds elapsed: Int) {
        framesIn.add(inputs, ordering: .relaxed)
        framesOut.add(outputs, ordering: .relaxed)
        nanoseconds.add(elapsed, ordering: .relaxed)
    }

    public var snapshot: Snapshot {
        let edge = drops()
        return Snapshot(name: name, framesIn: framesIn.load(ordering: .relaxed), framesOut: framesOut.load(ordering: .relaxed),
                        drops: edge.dropped, queueHighWater: edge.highWater,
                        processingNanoseconds: nanoseconds.load(ordering: .relaxed))
    }
}
