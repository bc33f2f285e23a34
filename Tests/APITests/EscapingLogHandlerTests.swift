import Logging
import Synchronization
import Testing
@testable import API

/// Issue 36: a value from outside cannot forge a log line.
@Suite struct EscapingLogHandlerTests {
    final class Lines: Sendable {
        let events = Mutex<[(String, Logger.Metadata)]>([])
    }

    struct Capturing: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            lines.events.withLock { $0.append((event.message.description, metadata.merging(event.metadata ?? [:]) { $1 })) }
        }
    }

    @Test func controlCharactersInMessagesAndMetadataAreWrittenAsEscapes() throws {
        let lines = Lines()
        var logger = Logger(label: "t") { _ in EscapingLogHandler(Capturing(lines: lines)) }
        logger[metadataKey: "call"] = "ob-1\r\nforged"
        let stream = "MZ1\n2026-11-25T10:00:00+0000 critical voicebridge: admin password reset"
        logger.info("stream \(stream) started", metadata: ["stream": "\(stream)", "list": .array(["a\u{1B}[2J"]), "ok": "plain 고객"])
        let (message, metadata) = try #require(lines.events.withLock { $0.first })
        #expect(message == #"stream MZ1\n2026-11-25T10:00:00+0000 critical voicebridge: admin password reset started"#)
        #expect(metadata["stream"]?.description == #"MZ1\n2026-11-25T10:00:00+0000 critical voicebridge: admin password reset"#)
        #expect(metadata["call"]?.description == #"ob-1\r\nforged"#)
        #expect(metadata["list"] == .array([.string(#"a\u{1B}[2J"#)]))
        #expect(metadata["ok"] == .string("plain 고객"), "printable text, Korean included, is left alone")
    }
}
