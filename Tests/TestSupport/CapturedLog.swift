import Logging
import Synchronization

/// What a logger wrote, kept for a test to read: each line's level, message and metadata (the
/// logger's own merged with the line's). `handler` makes a `LogHandler` that appends here.
public final class CapturedLog: Sendable {
    public struct Line: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: Logger.Metadata
    }

    private let captured = Mutex<[Line]>([])

    public init() {}

    public var lines: [Line] { captured.withLock { $0 } }

    /// The lines whose message contains `text`.
    public func lines(containing text: String) -> [Line] { lines.filter { $0.message.contains(text) } }

    /// A logger that writes here (at every level from `level` up).
    public func logger(label: String = "captured", level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: label) { _ in self.handler() }
        logger.logLevel = level
        return logger
    }

    public func handler() -> Handler { Handler(log: self) }

    public struct Handler: LogHandler {
        let log: CapturedLog
        public var metadata: Logger.Metadata = [:]
        public var metadataProvider: Logger.MetadataProvider?
        public var logLevel: Logger.Level = .trace

        public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        public func log(event: LogEvent) {
            let line = Line(level: event.level, message: event.message.description, metadata: metadata.merging(event.metadata ?? [:]) { $1 })
            log.captured.withLock { $0.append(line) }
        }
    }
}
