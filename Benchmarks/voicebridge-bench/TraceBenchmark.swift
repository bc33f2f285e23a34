import Calls
import Foundation
import Telemetry
import TestSupport

/// `traces`: what tracing a call costs the server — its "call queued" span, its attempt's span and
/// a span a turn and a step, made by the same `CallSpan` the call manager uses, batched and sent
/// by the server's own OTLP/HTTP exporter to a receiver in another process (OpenTelemetry's
/// protobuf definitions decode every span, so each is counted as it arrives). Calls of ten turns
/// and two barge-ins, made in bursts the exporter's queue holds (a burst is sent before the next).
/// The figure is this process's CPU, per call, from the first span to the last one received:
/// nothing else runs in it meanwhile. Tracing off costs nothing on a call's path: no span is made.
enum TraceBenchmark {
    struct Result {
        var calls: Int
        var spansPerCall: Int
        var cpuMicrosecondsPerCall: Double
        var wallSeconds: Double
        var dropped: Int
    }

    static func run(calls: Int = 300, burst: Int = 30) async throws -> Result {
        guard OTLPReceiver.isInstalled else { throw BenchError("opentelemetry-proto is missing (make deps)") }
        let receiver = try await OTLPReceiver()
        defer { receiver.stop() }
        let report = try Self.report(turns: 10)
        let spansPerCall = 2 + report.turns.count * 5   // call queued, call; a turn and its four steps
        let dropped = Locked(0)
        let started = Date()
        let cpuBefore = ServerProcess.cpuSeconds(pid: "self")
        try await OTLPReceiver.withTracing(endpoint: receiver.tracesURL, dropped: { n in dropped.withLock { $0 += n } }) { tracing in
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
                let expected = made * spansPerCall
                _ = try await receiver.spans(timeout: .seconds(60)) { $0.count >= expected }
            }
        }
        let cpu = ServerProcess.cpuSeconds(pid: "self") - cpuBefore
        return Result(calls: calls, spansPerCall: spansPerCall, cpuMicrosecondsPerCall: cpu / Double(calls) * 1e6,
                      wallSeconds: Date().timeIntervalSince(started), dropped: dropped.value)
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
        print(table(["calls", "spans a call", "CPU µs a call (made + exported)", "CPU µs a span", "dropped", "wall s"], [[
            "\(result.calls)", "\(result.spansPerCall)", String(format: "%.0f", result.cpuMicrosecondsPerCall),
            String(format: "%.1f", result.cpuMicrosecondsPerCall / Double(result.spansPerCall)), "\(result.dropped)", String(format: "%.1f", result.wallSeconds),
        ]]))
        try write(["calls": result.calls, "spans_per_call": result.spansPerCall, "cpu_us_per_call": result.cpuMicrosecondsPerCall,
                   "dropped": result.dropped, "wall_seconds": result.wallSeconds], to: output, as: "traces")
    }
}
