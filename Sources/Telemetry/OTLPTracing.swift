import Logging
import OTel
import ServiceLifecycle
import Tracing

/// Traces sent to an OpenTelemetry collector over OTLP/HTTP (protobuf): `telemetry.otlp_endpoint`.
///
/// Spans wait in swift-otel's batch processor — at most `queuedSpans`, sent every `exportEvery`
/// or when a batch is full — and a collector that is slow or down costs spans (dropped past the
/// bound, or after the export times out), never a call's time: the calls only hand finished spans
/// over. `service` runs the exporter; on graceful shutdown it sends what is still queued.
public struct OTLPTracing: Sendable {
    public let tracer: any Tracer
    public let service: any Service

    public struct Settings: Sendable {
        /// Where spans go: the collector's traces URL, used as given (e.g. `http://collector:4318/v1/traces`).
        public var endpoint: String
        public var serviceName = "voicebridge"
        public var queuedSpans = 2048
        public var exportEvery: Duration = .seconds(5)
        public var exportTimeout: Duration = .seconds(10)

        public init(endpoint: String) { self.endpoint = endpoint }
    }

    /// `dropped`: told how many spans were lost — a batch the collector did not take (dropped once
    /// the exporter's own retries are spent), or spans that found the queue full.
    public init(settings: Settings, logger: Logger, dropped: @escaping @Sendable (Int) -> Void = { _ in }) throws {
        var configuration = OTel.Configuration.default
        configuration.serviceName = settings.serviceName
        configuration.diagnosticLogger = .custom(Logger(label: logger.label) { _ in ExportFailureLogHandler(wrapped: logger, dropped: dropped) })
        configuration.diagnosticLogLevel = switch logger.logLevel {
        case .trace: .trace
        case .debug: .debug
        case .info, .notice: .info
        case .warning: .warning
        case .error, .critical: .error
        }
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.enabled = true
        configuration.traces.sampler = .alwaysOn
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.endpoint = settings.endpoint
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.traces.otlpExporter.timeout = settings.exportTimeout
        configuration.traces.batchSpanProcessor.maxQueueSize = settings.queuedSpans
        configuration.traces.batchSpanProcessor.maxExportBatchSize = min(512, settings.queuedSpans)
        configuration.traces.batchSpanProcessor.scheduleDelay = settings.exportEvery
        configuration.traces.batchSpanProcessor.exportTimeout = settings.exportTimeout
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        tracer = backend.factory
        service = backend.service
    }
}
