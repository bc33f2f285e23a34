import Calls
import Foundation
import Logging
import ServiceLifecycle
import Telemetry
import TestSupport

/// `traces`: what tracing a call costs the server — its "call queued" span, its attempt's span and
/// a span a turn and a step, made by the same `CallSpan` the call manager uses, batched and sent
/// by the server's own OTLP/HTTP exporter to a receiver in another process (OpenTelemetry's
/// protobuf definitions decode every span into a file, whose new lines are counted). Calls of ten
/// turns and two barge-ins. The figure is this process's CPU, per call, from the first span made
/// to the last one received: nothing else runs in it meanwhile but the counting of the file's lines. Tracing off costs nothing on a call's path: no span is made.
enum TraceBenchmark {
    struct Result {
        var calls: Int
        var spansPerCall: Int
        var spansReceived: Int
        var cpuMicrosecondsPerCall: Double
        var wallSeconds: Double
        var dropped: Int
    }

    static func run(calls: Int = 300, burst: Int = 8) async throws -> Result {
        guard OTLPReceiver.isInstalled else { throw BenchError("opentelemetry-proto is missing (make deps)") }
        let (receiver, port, spansFile) = try await startReceiver()
        defer { kill(receiver.processIdentifier, SIGKILL); receiver.waitUntilExit() }
        let report = try Self.report(turns: 10)
        let spansPerCall = 2 + report.turns.count * 5   // call queued, call; a turn and its four steps
        // The server's exporter, sending every 200 ms (5 s in the server) so that the run is short;
        // its queue (2,048) and batches (512) as the server's. A burst of calls is one batch, sent
        // before the next burst is made, so no span finds the queue full.
        var settings = OTLPTracing.Settings(endpoint: "http://127.0.0.1:\(port)/v1/traces")
        settings.exportEvery = .milliseconds(200)
        let dropped = Locked(0)
        let tracing = try OTLPTracing(settings: settings, logger: Logger(label: "otel"), dropped: { n in dropped.withLock { $0 += n } })
        let group = ServiceGroup(configuration: .init(services: [tracing.service], logger: Logger(label: "bench")))
        let counter = try ReceivedSpans(file: spansFile)
        let started = Date()
        let cpuBefore = ServerProcess.cpuSeconds(pid: "self")
        var received = 0
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var made = 0
            while made < calls {
                for _ in 0..<min(burst, calls - made) {
                    let at = Date()
                    var call = CallRecord(outboundId: CallRecord.newID(), callerNumber: "+15550100", calleeNumber: "+15550101",
                                          purpose: "a benchmark", questions: ["q1"], createdAt: at)
                    let queued = CallSpan.Queued(on: tracing.tracer, under: nil, at: at)
                    call.traceParent = queued.traceParent?.value
                    queued.end(callID: call.outboundId)
                    call.attemptCount = 1
                    let span = CallSpan(tracer: tracing.tracer, call: call, engine: "local", at: at)
                    span.record(report, answered: at)
                    span.note(state: .completed, reason: nil)
                    span.end(at: at.addingTimeInterval(60))
                    made += 1
                }
                // The receiver is another process writing a file: read what it added every 50 ms.
                let deadline = Date().addingTimeInterval(30)
                while received + dropped.value < made * spansPerCall, Date() < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                    received += try counter.newSpans()
                }
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let cpu = ServerProcess.cpuSeconds(pid: "self") - cpuBefore
        return Result(calls: calls, spansPerCall: spansPerCall, spansReceived: received, cpuMicrosecondsPerCall: cpu / Double(calls) * 1e6,
                      wallSeconds: Date().timeIntervalSince(started), dropped: dropped.value)
    }

    /// Counts the spans a receiver's file gained since the last read (a line each).
    final class ReceivedSpans {
        let handle: FileHandle
        var partial = Data()
        init(file: String) throws {
            guard let handle = FileHandle(forReadingAtPath: file) else { throw BenchError("cannot read \(file)") }
            self.handle = handle
        }
        func newSpans() throws -> Int {
            partial.append(try handle.readToEnd() ?? Data())
            guard let last = partial.lastIndex(of: 0x0A) else { return 0 }
            let complete = partial[...last]
            partial = Data(partial[(last + 1)...])
            return complete.split(separator: 0x0A).count { $0.first == UInt8(ascii: "{") }
        }
    }

    /// `otlp_receiver.py` printing to a file (so decoding and reading its lines cost this process nothing).
    static func startReceiver() async throws -> (Process, Int, String) {
        let file = NSTemporaryDirectory() + "vb-trace-bench-\(ProcessInfo.processInfo.processIdentifier).jsonl"
        guard FileManager.default.createFile(atPath: file, contents: nil) else { throw BenchError("cannot write \(file)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Fixtures.repository.appendingPathComponent("Tests/TestSupport/otlp_receiver.py").path, "0"]
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = Fixtures.repository.appendingPathComponent(".deps/otlp").path
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: file)
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<200 {
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening ") }), let port = Int(line.dropFirst("listening ".count)) {
                return (process, port, file)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw BenchError("the OTLP receiver did not start")
    }

    /// A call of `turns` turns, each with its four steps, and two barge-ins, as a stored report reads.
    static func report(turns: Int) throws -> CallReport {
        let timings = (1...turns).map { n -> [String: Any] in
            ["turn": n, "speech_ended_at": Double(n) * 5, "transcript_ms": 180, "reply_started_ms": 240, "first_audio_ms": 420,
             "first_frame_ms": 440, "first_byte_ms": [String: Int](), "interrupted": n == 3 || n == 7]
        }
        let cuts: [[String: Any]] = [["item": "reply-3", "at": 16.0, "heard_ms": 900, "generated_ms": 2400, "turn": 3],
                                     ["item": "reply-7", "at": 36.0, "heard_ms": 400, "generated_ms": 1800, "turn": 7]]
        let decoder = JSONDecoder()
        return CallReport(turns: try decoder.decode([TurnTiming].self, from: JSONSerialization.data(withJSONObject: timings)),
                          interruptions: try decoder.decode([Interruption].self, from: JSONSerialization.data(withJSONObject: cuts)))
    }
}

extension BenchMain {
    static func traces(output: String) async throws {
        let result = try await TraceBenchmark.run()
        print("\n## traces: what tracing a call costs (telemetry.otlp_endpoint set)\n")
        print(table(["calls", "spans a call", "spans received", "CPU µs a call (made + exported)", "CPU µs a span", "dropped", "wall s"], [[
            "\(result.calls)", "\(result.spansPerCall)", "\(result.spansReceived)", String(format: "%.0f", result.cpuMicrosecondsPerCall),
            String(format: "%.1f", result.cpuMicrosecondsPerCall / Double(result.spansPerCall)), "\(result.dropped)", String(format: "%.1f", result.wallSeconds),
        ]]))
        try write(["calls": result.calls, "spans_per_call": result.spansPerCall, "spans_received": result.spansReceived, "cpu_us_per_call": result.cpuMicrosecondsPerCall,
                   "dropped": result.dropped, "wall_seconds": result.wallSeconds], to: output, as: "traces")
    }
}
