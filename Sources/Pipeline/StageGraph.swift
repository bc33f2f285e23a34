import Synchronization

/// Stages connected by bounded queues, run as child tasks of the one task that calls `run()`.
///
/// Build it with `edge(...)` and `connect(...)`, then `await graph.run()` inside the task that owns
/// the call: when that task is cancelled, or every stage has seen `end`, `run()` returns and no
/// stage task is left running (structured concurrency, not detached tasks).
public final class StageGraph: Sendable {
    private struct Pending: Sendable {
        var name: String
        var body: @Sendable () async -> Void
    }

    private let pending = Mutex<[Pending]>([])
    private let allCounters = Mutex<[StageCounters]>([])
    private let running = Atomic<Int>(0)

    public init() {}

    /// A new edge. Live network input: `.dropOldest`; faster-than-real-time producers: `.suspendProducer`.
    public func edge<T: Sendable>(_ type: T.Type = T.self, capacity: Int, policy: BoundedQueue<T>.OverflowPolicy) -> BoundedQueue<T> {
        BoundedQueue(capacity: capacity, policy: policy)
    }

    /// Runs `stage` between `input` and `output` once the graph runs. Control events are handled by
    /// the stage and passed on ahead of data; `end` finishes the output and stops the stage.
    public func connect<S: PipelineStage>(_ name: String, _ stage: S, from input: BoundedQueue<S.Input>, to output: BoundedQueue<S.Output>) {
        let counters = StageCounters(name: name) {
            let c = input.counters
            return (c.dropped, c.highWater)
        }
        allCounters.withLock { $0.append(counters) }
        let body: @Sendable () async -> Void = {
            var stage = stage
            let clock = ContinuousClock()
            /// Lets the stage emit what it still holds for `event`, counted like any output.
            func handle(_ event: ControlEvent) async {
                let results = stage.handle(event)
                counters.record(inputs: 0, outputs: results.count, nanoseconds: 0)
                for result in results { await output.send(result) }
            }
            while let message = await input.next() {
                switch message {
                case .data(let value):
                    let start = clock.now
                    let results = stage.process(value)
                    counters.record(inputs: 1, outputs: results.count, nanoseconds: (clock.now - start).totalNanoseconds)
                    for result in results {
                        guard await output.send(result) else { break }
                    }
                case .control(let event):
                    await handle(event)
                    output.sendControl(event)
                    if event == .end { output.finish(); return }
                }
            }
            // The input finished and drained: a graceful end of stream, so the stage flushes
            // what it holds (a resampler's tail) just as on `end`, which overtakes instead.
            if !Task.isCancelled { await handle(.end) }
            output.finish()
        }
        pending.withLock { $0.append(Pending(name: name, body: body)) }
    }

    /// Adds a task that is not a `PipelineStage` (a source, a pacer, a sink) to the graph's scope.
    public func attach(_ name: String, _ body: @escaping @Sendable () async -> Void) {
        pending.withLock { $0.append(Pending(name: name, body: body)) }
    }

    public var counters: [StageCounters.Snapshot] { allCounters.withLock { $0.map(\.snapshot) } }

    /// Stage tasks currently running: zero before `run()` and after it returns.
    public var runningTasks: Int { running.load(ordering: .relaxed) }

    /// Runs every stage as a child task and returns when all have ended or the caller is cancelled.
    public func run() async {
        let stages = pending.withLock { s -> [Pending] in defer { s.removeAll() }; return s }
        await withDiscardingTaskGroup { group in
            for stage in stages {
                running.add(1, ordering: .relaxed)
                group.addTask {
                    await stage.body()
                    self.running.subtract(1, ordering: .relaxed)
                }
            }
        }
    }
}
