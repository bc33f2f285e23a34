import API
import ArgumentParser
import Calls
import Foundation
import Logging
import Prometheus
import ServiceLifecycle
import Telemetry

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the server: REST API, dashboard, SIP user agent and media streams."
    )

    @Option(name: .long, help: "YAML configuration file (see config/voicebridge.example.yaml).")
    var config: String?

    @Flag(name: .long, help: "Load and validate the configuration, print it, and exit.")
    var checkConfig = false

    @Flag(name: .long, help: ArgumentHelp(
        "Print every configuration key the server reads, one JSON object a line (key, environment variables, kind, default), and exit.",
        discussion: "The environment is not read; with --config, the file's routes, webhook endpoints and secrets are listed too."))
    var listKeys = false

    func run() async throws {
        MallocArenas.limitToOnePerCore()
        LoggingSystem.bootstrap({ label, metadata in
            var handler = EscapingLogHandler(StreamLogHandler.standardError(label: label, metadataProvider: metadata))
            handler.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
            return handler
        }, metadataProvider: .callTrace)
        let logger = Logger(label: "voicebridge")
        if listKeys { return try CommandSetup.printKeyDefinitions(path: config) }

        let settings = try CommandSetup.configuration(path: config)
        if checkConfig {
            print("configuration ok: http \(settings.http.host):\(settings.http.port), database \(settings.database.displayName), engine \(settings.engine.mode.rawValue)")
            return
        }
        ShutdownWatchdog.install(timeout: settings.http.shutdownTimeoutSeconds)

        let store = try await CommandSetup.store(settings)
        try await store.webhooks.syncConfigured(settings.webhooks.storedEndpoints)   // before reconciling: its failures are announced
        let closed = try await store.reconcileAfterRestart(node: settings.cluster.resolvedNodeID(httpPort: settings.http.port))
        if !closed.isEmpty {
            logger.warning("closed calls interrupted by the last shutdown", metadata: ["calls": "\(closed.joined(separator: ","))"])
        }

        let registry = PrometheusCollectorRegistry()
        let tracing = try settings.telemetry.otlpEndpoint.map { endpoint in
            var traces = OTLPTracing.Settings(endpoint: endpoint)
            traces.serviceName = settings.telemetry.serviceName
            let dropped = registry.makeCounter(descriptor: .whole("voicebridge_trace_spans_dropped_total",
                help: "Spans dropped: the OTLP collector did not take them (down, slow past the export timeout, or refusing), or the exporter's queue was full"))
            logger.info("traces go to the OTLP collector", metadata: ["endpoint": "\(endpoint)"])
            return try OTLPTracing(settings: traces, logger: Logger(label: "otel")) { spans in dropped.increment(by: Int64(spans)) }
        }
        let calls: CallSystem
        do {
            calls = try await CallSystem.start(config: settings, store: store, logger: logger, metrics: VoiceBridgeServer.callMetrics(registry: registry),
                                               tracer: tracing?.tracer)
        } catch {
            FileHandle.standardError.write(Data("voicebridge: \(error)\n".utf8))
            throw ExitCode(1)
        }
        let status = RuntimeStatus()
        status.sipListening = true
        logger.info("SIP listening", metadata: ["address": "\(settings.sip.bind):\(calls.sipPort)", "engine": "\(settings.engine.mode.rawValue)"])
        let server = VoiceBridgeServer(config: settings, store: store, status: status, logger: logger, calls: calls, metricsRegistry: registry)
        let app = server.application { port in
            logger.info("listening", metadata: ["url": "http://\(settings.http.host):\(port)/"])
        }
        // Stopped in the reverse order: the calls end first, then the exporter sends their last spans.
        let group = ServiceGroup(configuration: .init(
            services: (tracing.map { [$0.service] } ?? []) + [app],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        ))
        try await group.run()
        logger.info("stopped")
    }
}
