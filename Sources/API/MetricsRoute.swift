import Calls
import Pipeline
import Hummingbird
import Prometheus

/// `GET /metrics` in the Prometheus text format: what calls report through swift-metrics
/// (turn latency, engine errors, pipeline drops) plus gauges read at scrape time.
struct MetricsRoute: Sendable {
    let registry: PrometheusCollectorRegistry
    let stages: StageMetricsExporter

    /// The factory calls report through, with turn-latency buckets suited to speech (100 ms – 5 s)
    /// and campaign-claim buckets suited to a database transaction (0.25–250 ms).
    static func factory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[CallMetrics.turnLatencyLabel] = [100, 250, 500, 750, 1000, 1500, 2000, 3000, 5000].map { .milliseconds($0) }
        factory.durationHistogramBuckets[CallMetrics.campaignClaimLabel] = [250, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 250_000].map { .microseconds($0) }
        return factory
    }

    func render(store: CallStore, calls: CallSystem?) async throws -> Response {
        let stats = try await store.stats()
        for state in CallState.allCases {
            registry.makeGauge(descriptor: .whole("voicebridge_calls", help: "Calls in the database by state"), labels: [("state", state.rawValue)])
                .set(Double(stats.byState[state] ?? 0))
        }
        if let calls {
            let live = await calls.manager.liveCount
            registry.makeGauge(descriptor: .whole("voicebridge_live_calls", help: "Calls holding a live session or SIP dialog"))
                .set(Double(live))
            if let admission = calls.manager.admission {
                let reading = admission.reading
                registry.makeGauge(descriptor: .whole("voicebridge_engine_call_limit", help: "Calls the engine admits at once now, moved by the turns' latency (engine.local.turn_latency_goal_ms)"))
                    .set(Double(reading.limit))
                registry.makeGauge(descriptor: .whole("voicebridge_engine_headroom_calls", help: "Calls the engine would admit now beyond those live"))
                    .set(Double(admission.room(live: live)))
                if let median = reading.recentTurnLatencyMilliseconds {
                    registry.makeGauge(descriptor: .whole("voicebridge_engine_recent_turn_latency_seconds", help: "Median turn latency of the last turns the limit was decided on"))
                        .set(Double(median) / 1000)
                }
            }
            let tick = calls.mediaTickStatistics
            registry.makeGauge(descriptor: .whole("voicebridge_media_paced_legs", help: "Legs on the shared 20 ms media ticks")).set(Double(calls.pacedLegs))
            registry.makeGauge(descriptor: .whole("voicebridge_media_late_frames", help: "Frames due in media ticks that ran more than 10 ms late, since start"))
                .set(Double(tick.lateFrames))
            registry.makeGauge(descriptor: .whole("voicebridge_media_audibly_late_frames", help: "Frames due in media ticks that ran more than 40 ms late (more than playout buffers hide), since start"))
                .set(Double(tick.audiblyLateFrames))
            stages.export(calls.manager.pipelineStatistics.totals, into: registry)
        }
        stages.export(inference: InferenceCPU.byPool, into: registry)
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
    }
}
