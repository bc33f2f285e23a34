import Logging
import Testing
import TestSupport
@testable import API

/// Issue 36: a value from outside cannot forge a log line.
@Suite struct EscapingLogHandlerTests {
    @Test func controlCharactersInMessagesAndMetadataAreWrittenAsEscapes() throws {
        let log = CapturedLog()
        var logger = Logger(label: "t") { _ in EscapingLogHandler(log.handler()) }
        logger[metadataKey: "call"] = "ob-1\r\nforged"
        let stream = "MZ1\n2026-11-25T10:00:00+0000 critical voicebridge: admin password reset"
        logger.info("stream \(stream) started", metadata: ["stream": "\(stream)", "list": .array(["a\u{1B}[2J"]), "ok": "plain 고객"])
        let line = try #require(log.lines.first)
        let (message, metadata) = (line.message, line.metadata)
        #expect(message == #"stream MZ1\n2026-11-25T10:00:00+0000 critical voicebridge: admin password reset started"#)
        #expect(metadata["stream"]?.description == #"MZ1\n2026-11-25T10:00:00+0000 critical voicebridge: admin password reset"#)
        #expect(metadata["call"]?.description == #"ob-1\r\nforged"#)
        #expect(metadata["list"] == .array([.string(#"a\u{1B}[2J"#)]))
        #expect(metadata["ok"] == .string("plain 고객"), "printable text, Korean included, is left alone")
    }
}
