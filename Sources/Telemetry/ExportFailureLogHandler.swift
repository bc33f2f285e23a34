import Logging

/// swift-otel's batch processor says the spans it loses only in its log: a batch it could not send
/// (the collector down, slow past the export timeout, or refusing it) — "Failed to export batch."
/// with the batch's size —, and the spans that found its queue full — "Spans were dropped this
/// iteration because queue was full" with their count, at its next send. This handler, between it
/// and the server's log, hears those lines and counts the spans lost
/// (`voicebridge_trace_spans_dropped_total`); every line still goes on.
struct ExportFailureLogHandler: LogHandler {
    var wrapped: Logger
    let dropped: @Sendable (Int) -> Void

    func log(event: LogEvent) {
        if event.level >= .warning {
            let message = event.message.description
            if message.hasPrefix("Failed to export batch") {
                dropped(count("batch_size", in: event))
            } else if message.hasPrefix("Spans were dropped") {
                dropped(count("dropped_count", in: event))
            }
        }
        wrapped.log(level: event.level, event.message, metadata: event.metadata, source: event.source, file: event.file, function: event.function, line: event.line)
    }

    /// A count the line carries in its metadata (or the logger's), 0 if none.
    private func count(_ key: String, in event: LogEvent) -> Int {
        event.metadata?[key].flatMap { Int("\($0)") } ?? wrapped[metadataKey: key].flatMap { Int("\($0)") } ?? 0
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
