import Foundation
import Logging
import Telemetry

extension OTLPReceiver {
    /// Runs `body` with the server's own exporter (`OTLPTracing`) sending to `endpoint` every
    /// 100 ms; stops the exporter after. `OTEL_DEBUG` set: its diagnostics at trace level.
    public static func withTracing<T: Sendable>(endpoint: String, dropped: @escaping @Sendable (Int) -> Void = { _ in },
                                                _ body: (OTLPTracing) async throws -> T) async throws -> T {
        var settings = OTLPTracing.Settings(endpoint: endpoint)
        settings.exportEvery = .milliseconds(100)
        settings.exportTimeout = .seconds(2)
        var logger = Logger(label: "otel")
        if ProcessInfo.processInfo.environment["OTEL_DEBUG"] != nil { logger.logLevel = .trace }
        let tracing = try OTLPTracing(settings: settings, logger: logger, dropped: dropped)
        let exporter = Task { try await tracing.service.run() }
        defer { exporter.cancel() }
        return try await body(tracing)
    }
}
