import Logging

/// swift-otel's batch processor says a batch it could not send (the collector down, slow past the
/// export timeout, or refusing it) only in its log — "Failed to export batch." with the batch's
/// size — and then drops it. This handler, between it and the server's log, hears that line and
/// counts the spans lost (`voicebridge_trace_spans_dropped_total`); every line still goes on.
struct ExportFailureLogHandler: LogHandler {
    var wrapped: Logger
    let dropped: @Sendable (Int) -> Void

    func log(event: LogEvent) {
        if event.level >= .warning, event.message.description.hasPrefix("Failed to export batch") {
            let size = event.metadata?["batch_size"].flatMap { Int("\($0)") } ?? wrapped[metadataKey: "batch_size"].flatMap { Int("\($0)") } ?? 0
            dropped(size)
        }
        wrapped.log(level: event.level, event.message, metadata: event.metadata, source: event.source, file: event.file, function: event.function, line: event.line)
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.handler.metadataProvider }
        set { wrapped.handler.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    var metadata: Logger.Metadata {
        get { wrapped.handler.metadata }
        set { wrapped.handler.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }
}
