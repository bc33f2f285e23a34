import Foundation
import Pipeline
import Synchronization

/// N complete call graphs at once, each fed one μ-law packet every 20 ms (as RTP arrives) and
/// paced out by its own pacer: does every graph keep up with its clock, and at what CPU cost?
enum EchoGraphBenchmark {
    struct Result {
        var realTime: Bool
        var drops: Int
        /// Pacer ticks more than 10 ms behind their grid.
        var lateTicks: Int
        /// Times the load generator itself woke more than 10 ms late (its packets then arrive late).
        var generatorLateTicks: Int
        var maxLatenessMilliseconds: Double
        var cpuPercentPerGraph: Double
        var framesSent: Int
        var framesExpected: Int
    }

    /// The echo "engine": what the caller said is what the agent says.
    struct EchoStage: PipelineStage {
        func process(_ input: VoiceFrame) -> [AudioFrame] { [input.frame] }
    }

    struct Call {
        let graph: StageGraph
        let packets: BoundedQueue<[UInt8]>
        let pacer: Pacer<[UInt8]>
    }

    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// The shape a call has in production: live input (drop-oldest) → inbound node → engine →
    /// outbound node → pacer input (suspend-producer, at most 100 ms ahead). Synchronous steps
    /// are fused into one node each; the pacer is ticked by the shared scheduler.
    /// With `engineTask` the engine runs as its own node (as a network engine must); without, the
    /// synchronous echo engine is fused with the audio steps into one node.
    static func makeCall(scheduler: PacerScheduler<[UInt8]>, sent: Counter, engineTask: Bool) throws -> Call {
        let graph = StageGraph()
        let packets = graph.edge([UInt8].self, capacity: 8, policy: .dropOldest)
        let paced = graph.edge(PacedEntry<[UInt8]>.self, capacity: 5, policy: .suspendProducer)
        let pacer = Pacer(input: paced)
        let inbound = G711DecodeStage(law: .muLaw).then(try ResampleStage(from: 8000, to: 16000)).then(VADStage())
        let outbound = try ResampleStage(from: 16000, to: 8000).then(G711EncodeStage(law: .muLaw))
            .then(PacerFeedStage<[UInt8]>(item: "echo", playback: pacer.playback))
        if engineTask {
            let voiced = graph.edge(VoiceFrame.self, capacity: 8, policy: .dropOldest)
            let reply = graph.edge(AudioFrame.self, capacity: 8, policy: .suspendProducer)
            graph.connect("inbound", inbound, from: packets, to: voiced)
            graph.connect("echo", EchoStage(), from: voiced, to: reply)
            graph.connect("outbound", outbound, from: reply, to: paced)
        } else {
            graph.connect("call", inbound.then(EchoStage()).then(outbound), from: packets, to: paced)
        }
        scheduler.register(pacer) { output in
            if case .audio = output { sent.value.add(1, ordering: .relaxed) }
        }
        return Call(graph: graph, packets: packets, pacer: pacer)
    }

    static func run(graphs n: Int, seconds: Double, engineTask: Bool) async throws -> Result {
        let sent = Counter()
        let scheduler = PacerScheduler<[UInt8]>()
        let calls = try (0..<n).map { _ in try makeCall(scheduler: scheduler, sent: sent, engineTask: engineTask) }
        let packets = (0..<50).map { G711.encode(FrameCostBenchmark.speechLike(rate: 8000, frame: $0), law: .muLaw) }
        let ticks = Int(seconds * 50)
        let clock = ContinuousClock()
        var driverLate = 0
        let cpuBefore = processCPUTime()
        let wallStart = clock.now
        await withDiscardingTaskGroup { group in
            for call in calls { group.addTask { await call.graph.run() } }
            group.addTask { await scheduler.run(clock: ContinuousClock()) }
            // The network: one packet per call every 20 ms on an absolute schedule. Calls start at
            // independent times, so their packets arrive spread over the period: call i at i mod 20 ms.
            let start = clock.now
            let slots = (0..<20).map { slot in stride(from: slot, to: calls.count, by: 20).map { calls[$0] } }
            for tick in 0..<ticks {
                for (slot, group) in slots.enumerated() where !group.isEmpty {
                    let deadline = start.advanced(by: .milliseconds(20 * tick + slot))
                    try? await clock.sleep(until: deadline, tolerance: nil)
                    if deadline.duration(to: clock.now) > .milliseconds(10) { driverLate += 1 }
                    for call in group { await call.packets.send(packets[tick % 50]) }
                }
            }
            // Let the last frames drain through (pipeline latency), then end every call.
            try? await clock.sleep(for: .milliseconds(200))
            group.cancelAll()
        }
        let wall = wallStart.duration(to: clock.now).totalSeconds
        let cpu = processCPUTime() - cpuBefore
        let drops = calls.reduce(0) { $0 + $1.graph.counters.reduce(0) { $0 + $1.drops } }
        let stats = scheduler.statistics
        let late = stats.lateTicks
        let maxLate = Double(stats.maxLatenessNanoseconds) / 1e6
        let reanchors = stats.reanchors
        return Result(realTime: late == 0 && drops == 0 && reanchors == 0, drops: drops, lateTicks: late, generatorLateTicks: driverLate,
                      maxLatenessMilliseconds: maxLate, cpuPercentPerGraph: cpu / wall * 100 / Double(n),
                      framesSent: sent.value.load(ordering: .relaxed), framesExpected: ticks * n)
    }
}
