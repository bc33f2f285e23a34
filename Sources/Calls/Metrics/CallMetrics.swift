import CoreMetrics
import Tools

/// What calls report to the metrics backend (Prometheus at `/metrics` in the server). Made from an
/// explicit factory so a server (or a test) owns its registry instead of a process-wide bootstrap.
public struct CallMetrics: Sendable {
    /// End of caller speech → first agent audio frame sent, per turn.
    let turnLatency: CoreMetrics.Timer
    let engineErrors: Counter
    /// Audio frames dropped by a full bounded queue (not by barge-in flushes).
    let pipelineDrops: Counter
    /// A campaign contact claimed and its call queued: the one transaction that keeps dials exactly once.
    let campaignClaim: CoreMetrics.Timer
    /// Inbound media streams closed unanswered at the limit of calls at once.
    let refusedStreams: Counter

    public static let turnLatencyLabel = "voicebridge_turn_latency_seconds"
    public static let campaignClaimLabel = "voicebridge_campaign_claim_seconds"

    /// Where the call system's other parts (the SIP user agent) report.
    public let factory: any MetricsFactory

    public init(factory: any MetricsFactory) {
        self.factory = factory
        turnLatency = CoreMetrics.Timer(label: Self.turnLatencyLabel, dimensions: [], preferredDisplayUnit: .seconds, factory: factory)
        engineErrors = Counter(label: "voicebridge_engine_errors_total", dimensions: [], factory: factory)
        pipelineDrops = Counter(label: "voicebridge_pipeline_dropped_frames_total", dimensions: [], factory: factory)
        campaignClaim = CoreMetrics.Timer(label: Self.campaignClaimLabel, dimensions: [], preferredDisplayUnit: .seconds, factory: factory)
        refusedStreams = Counter(label: "voicebridge_inbound_streams_refused_total", dimensions: [], factory: factory)
    }

    func refusedInbound() { refusedStreams.increment() }

    /// One of the operator's tools was called: counted by outcome, timed.
    public func toolCalled(_ record: ToolCallRecord) {
        Counter(label: "voicebridge_tool_calls_total", dimensions: [("status", record.status.rawValue)], factory: factory).increment()
        CoreMetrics.Timer(label: "voicebridge_tool_call_seconds", dimensions: [], preferredDisplayUnit: .seconds, factory: factory)
            .recordMilliseconds(record.milliseconds)
    }

    /// Reports nowhere (tests and tools that do not care).
    public static let none = CallMetrics(factory: NOOPMetricsHandler.instance)
}
