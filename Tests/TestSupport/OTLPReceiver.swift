import Foundation

/// `otlp_receiver.py`: an OTLP/HTTP traces endpoint on 127.0.0.1 whose spans are decoded by
/// OpenTelemetry's published protobuf definitions (Python's `opentelemetry-proto`). Each span it
/// prints arrives here as it is printed; `spans(until:)` ends at the span that completes what it
/// waits for. (`Process` is not Sendable; one test task starts and stops it.)
public final class OTLPReceiver: @unchecked Sendable {
    public static var isInstalled: Bool {
        FileManager.default.fileExists(atPath: Fixtures.repository.appendingPathComponent(".deps/otlp/opentelemetry/proto/__init__.py").path)
    }

    /// One span as the receiver decoded it (its JSON line).
    public struct Span: Sendable, CustomStringConvertible {
        public let line: String
        var object: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:] }
        public var traceID: String { object["trace_id"] as? String ?? "" }
        public var spanID: String { object["span_id"] as? String ?? "" }
        public var parentSpanID: String { object["parent_span_id"] as? String ?? "" }
        public var name: String { object["name"] as? String ?? "" }
        /// OTLP's `SpanKind`: 1 internal, 2 server, 3 client, 4 producer, 5 consumer.
        public var kind: Int { object["kind"] as? Int ?? 0 }
        public var service: String { object["service"] as? String ?? "" }
        public var start: UInt64 { (object["start"] as? NSNumber)?.uint64Value ?? 0 }
        public var end: UInt64 { (object["end"] as? NSNumber)?.uint64Value ?? 0 }
        public var attributes: [String: Any] { object["attributes"] as? [String: Any] ?? [:] }
        public var events: [[String: Any]] { object["events"] as? [[String: Any]] ?? [] }
        public var description: String { line }
    }

    struct Received: Sendable {
        var port = 0
        var spans: [Span] = []
        var errors: [String] = []
        var ended = false
    }

    let process = Process()
    private let received = Locked(Received())
    public var port: Int { received.value.port }
    public var tracesURL: String { "http://127.0.0.1:\(port)/v1/traces" }
    /// Bodies the receiver could not decode as OTLP.
    public var errors: [String] { received.value.errors }

    /// Started and bound (bounded: 20 s).
    public init() async throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Fixtures.repository.appendingPathComponent("Tests/TestSupport/otlp_receiver.py").path, "0"]
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = Fixtures.repository.appendingPathComponent(".deps/otlp").path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let received = self.received
        let pending = Locked(Data())
        output.fileHandleForReading.readabilityHandler = { handle in
            let chunk = handle.availableData
            guard !chunk.isEmpty else {
                handle.readabilityHandler = nil
                received.withLock { $0.ended = true }
                return
            }
            let lines = pending.withLock { data -> [String] in
                data.append(chunk)
                var lines: [String] = []
                while let newline = data.firstIndex(of: 0x0A) {
                    lines.append(String(decoding: data[data.startIndex..<newline], as: UTF8.self))
                    data = Data(data[(newline + 1)...])
                }
                return lines
            }
            received.withLock { r in
                for line in lines {
                    if line.hasPrefix("listening "), let port = Int(line.dropFirst("listening ".count)) {
                        r.port = port
                    } else if line.contains("\"error\"") {
                        r.errors.append(line)
                    } else {
                        r.spans.append(Span(line: line))
                    }
                }
            }
        }
        try process.run()
        do {
            try await received.wait(for: "the OTLP receiver's port", timeout: .seconds(20)) { $0.port != 0 || $0.ended }
        } catch {
            stop()
            throw error
        }
        guard port != 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the OTLP receiver did not start"]) }
    }

    /// The spans received, once `done` accepts them; throws after `timeout` with what had come.
    public func spans(timeout: Duration = .seconds(30), until done: @escaping @Sendable ([Span]) -> Bool) async throws -> [Span] {
        try await received.wait(for: "spans", timeout: timeout) { done($0.spans) }
        return received.value.spans
    }

    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
