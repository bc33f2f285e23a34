import Calls
import Pipeline
import Prometheus
import Synchronization

/// Shows every pipeline stage's figures on `/metrics`, summed across calls by side and stage:
/// counters `voicebridge_stage_frames_in_total`, `…_frames_out_total`, `…_drops_total`,
/// `…_processing_seconds_total` with `…_timed_frames_total` (the frames that time covers: the
/// mean per frame is their ratio), and the gauge `voicebridge_stage_queue_high_water` (the
/// deepest any call's queue got); and the inference pools' CPU. The sums only grow, so they are mirrored into Prometheus
/// counters by the increase since the last scrape.
final class StageMetricsExporter: Sendable {
    private let emitted = Mutex<[String: Double]>([:])

    func export(_ totals: [StageMeter.Snapshot], into registry: PrometheusCollectorRegistry) {
        for stage in totals {
            let labels = [("side", stage.side), ("stage", stage.stage)]
            count("voicebridge_stage_frames_in_total", "Frames that entered a pipeline stage or queue", Double(stage.framesIn), labels, registry)
            count("voicebridge_stage_frames_out_total", "Frames a pipeline stage or queue passed on", Double(stage.framesOut), labels, registry)
            count("voicebridge_stage_drops_total", "Frames a pipeline stage or queue dropped (full queue; not barge-in flushes)", Double(stage.drops), labels, registry)
            count("voicebridge_stage_processing_seconds_total", "Time spent inside a stage on its timed frames", Double(stage.processingNanoseconds) / 1e9, labels, registry)
            count("voicebridge_stage_timed_frames_total", "Frames whose processing time was measured (one in \(StageMeter.timingInterval))", Double(stage.timedFrames), labels, registry)
            registry.makeGauge(descriptor: .whole("voicebridge_stage_queue_high_water", help: "Deepest a pipeline queue got in any call, in frames or events"), labels: labels)
                .set(Double(stage.queueHighWater))
        }
    }

    /// The inference pools' CPU (`InferenceCPU`): `voicebridge_inference_cpu_seconds_total` and
    /// `voicebridge_inference_jobs_total`, by pool.
    func export(inference totals: [String: InferenceCPU.Total], into registry: PrometheusCollectorRegistry) {
        for (pool, total) in totals {
            let labels = [("pool", pool)]
            count("voicebridge_inference_cpu_seconds_total", "CPU the inference pool's jobs used on their threads", total.seconds, labels, registry)
            count("voicebridge_inference_jobs_total", "Jobs the inference pool ran", Double(total.jobs), labels, registry)
        }
    }

    private func count(_ name: String, _ help: String, _ value: Double, _ labels: [(String, String)], _ registry: PrometheusCollectorRegistry) {
        let key = name + labels.map { "|\($0.1)" }.joined()
        let increase = emitted.withLock { e -> Double in
            let delta = value - (e[key] ?? 0)
            if delta > 0 { e[key] = value }
            return delta
        }
        let counter = registry.makeCounter(descriptor: .whole(name, help: help), labels: labels)
        if increase > 0 { counter.increment(by: increase) }
    }
}
