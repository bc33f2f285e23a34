import Calls
import Foundation
import Personas
import TestSupport

/// `make bench`'s `capacity` suite: how many local-engine calls one machine carries, and at what
/// turn latency. Each step starts `voicebridge serve` (local engine, as many calls at once as the
/// step) and places that many persona calls at once to a `voicebridge simulate-callee` in a
/// process of its own, so the callee's voice and ear are not counted as the agent's CPU; the
/// callee runs at a lower priority (nice 10) and yields the cores to the server. A callee whose
/// ear falls behind shows in the statuses, not in the agent's figures.
///
/// Each step keeps its calls going for a while (a slot places its next call when one ends), so
/// that they overlap as a campaign's do; it reports how many were live on average and at most.
/// A step reports the turn latency (the caller's speech end → the reply's first frame, every
/// turn), the server's CPU per minute of call split by where it went — each inference pool's jobs
/// on their own threads' clocks, the caller side's VAD and the rest of the media path from the
/// stages' meters, and what is left — the media frames paced late, and the server's memory. A
/// slot learns that its call ended from the server's event stream (`CallEvents`) rather than by
/// asking every 250 ms, so what is left is the server's own work, not the bench's questions.
enum CapacityBenchmark {
    struct Step {
        var calls: Int
        var wallSeconds: Double
        var callSeconds: Double
        var placedCalls: Int
        /// Calls live on the server, looked at once a second: their mean over the step and the most.
        var liveCalls: (mean: Double, max: Int)
        /// With the server's own admission (`admitted`): its limit of calls at once, looked at once a
        /// second — the lowest and highest it took, and where it ended.
        var admittedLimit: (min: Int, max: Int, last: Int)?
        var run: PersonaBenchmark.Run
        /// The server's CPU seconds over the step, by part ("moonshine", "piper", "vad", "media", "rest", …).
        var cpuByPart: [String: Double]
        var cpuSeconds: Double
        /// Jobs each inference pool ran over the step (transcriptions, verdicts, syntheses).
        var jobsByPool: [String: Double]
        var lateFrames: Int
        var audiblyLateFrames: Int
        var peakResidentKilobytes: Int

        /// CPU seconds per minute of call.
        func perCallMinute(_ seconds: Double) -> Double { callSeconds == 0 ? 0 : seconds / (callSeconds / 60) }
    }

    /// Where a callee's and a server's RTP ports come from: apart, so that neither takes the other's.
    static let calleeRTPPorts = 44_000...44_999, serverRTPPorts = 45_000...45_999

    /// `n` calls kept going for `seconds`: each of `n` slots places a persona call, waits for its
    /// end and places the next, until `seconds` have gone by (the calls then under way finish).
    /// `admitted`: the server admits as its turns allow (`engine.local.turn_latency_goal_ms`, from
    /// 2.5 calls a core), the calls beyond waiting in its queue; else it takes all `n` at once.
    static func step(calls n: Int, seconds: Double, serverBinary: String, admitted: Bool = false,
                     personas catalogue: [CalleePersona] = CalleePersona.catalogue) async throws -> Step {
        let callee = try await CalleeProcess.start(binary: serverBinary, rtpPorts: calleeRTPPorts)
        defer { callee.stop() }
        let server = try await PersonaBenchmark.personaServer(serverBinary, concurrency: n, environment: [
            "VOICEBRIDGE_ENGINE_LOCAL_MAX_CALLS": admitted ? "0" : "\(n)",
            "VOICEBRIDGE_OUTBOUND_RING_TIMEOUT": "30",   // a callee answering 30 calls at once, at nice 10, may take seconds
            "VOICEBRIDGE_SIP_GATEWAY": "sip:127.0.0.1:\(callee.sipPort)",
            "VOICEBRIDGE_SIP_GATEWAY_IS_SIMULATED_CALLEE": "true",
            "VOICEBRIDGE_SIP_RTP_PORT_MIN": "\(serverRTPPorts.lowerBound)", "VOICEBRIDGE_SIP_RTP_PORT_MAX": "\(serverRTPPorts.upperBound)",
        ])
        defer { server.stop() }
        let before = (cpu: server.cpuSeconds(), metrics: PrometheusText(try await server.metrics()), tick: try await server.mediaTick())
        let started = Date(), clock = ContinuousClock(), start = clock.now, end = start.advanced(by: .seconds(seconds))
        let base = "http://127.0.0.1:\(server.httpPort)/api/outbound"
        // The server's memory at its highest, its live calls and its limit, looked at once a second.
        let watch = Task {
            var peak = server.residentKilobytes(), live: [Double] = [], limits: [Int] = []
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                peak = max(peak, server.residentKilobytes())
                guard let metrics = try? await server.metrics() else { continue }
                let text = PrometheusText(metrics)
                if let count = text.values("voicebridge_live_calls").first?.1 { live.append(count) }
                if let limit = text.values("voicebridge_engine_call_limit").first?.1 { limits.append(Int(limit)) }
            }
            return (peak, live, limits)
        }
        let placed = try await CallEvents.watching(port: server.httpPort) { events in try await withThrowingTaskGroup(of: [(id: String, persona: CalleePersona, seconds: Double)].self) { group in
            for slot in 0..<n {
                group.addTask {
                    var calls: [(id: String, persona: CalleePersona, seconds: Double)] = []
                    while clock.now < end {
                        let persona = catalogue[(slot + calls.count * n) % catalogue.count]
                        let created = try await PersonaBenchmark.json(post: base, body: [
                            "caller_number": "070-1234-5678", "callee_number": String(format: "010-71%02d-%04d", slot % 100, calls.count),
                            "caller_display_name": "ABC Company", "purpose": "tomorrow's 2 pm meeting", "questions": persona.questions, "max_duration": 120,
                            "metadata": ["simulated_answers": persona.script],
                        ])
                        guard let id = created["outbound_id"] as? String else { throw BenchError("creating a capacity call failed: \(created)") }
                        let call = try await events.endedCall("\(base)/\(id)", id: id, within: .seconds(600))
                        calls.append((id, persona, (call["duration_seconds"] as? NSNumber)?.doubleValue ?? 0))
                    }
                    return calls
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        } }
        let wall = start.duration(to: clock.now)
        watch.cancel()
        let (peak, live, limits) = await watch.value
        let after = (cpu: server.cpuSeconds(), metrics: PrometheusText(try await server.metrics()), tick: try await server.mediaTick())
        var run = PersonaBenchmark.Run(outcomes: [], turnLatencies: [], transcriptLatencies: [], recognitionTimes: [])
        for call in placed { try await PersonaBenchmark.read(call.id, as: call.persona, from: base, since: started, into: &run) }
        let cpu = after.cpu - before.cpu
        return Step(calls: n, wallSeconds: Double(wall.components.seconds), callSeconds: placed.reduce(0) { $0 + $1.seconds }, placedCalls: placed.count,
                    liveCalls: (mean: live.isEmpty ? 0 : live.reduce(0, +) / Double(live.count), max: Int(live.max() ?? 0)),
                    admittedLimit: admitted ? limits.last.map { (limits.min() ?? $0, limits.max() ?? $0, $0) } : nil, run: run,
                    cpuByPart: parts(of: cpu, before: before.metrics, after: after.metrics), cpuSeconds: cpu,
                    jobsByPool: after.metrics.increases("voicebridge_inference_jobs_total", by: "pool", since: before.metrics),
                    lateFrames: after.tick.lateFrames - before.tick.lateFrames, audiblyLateFrames: after.tick.audiblyLateFrames - before.tick.audiblyLateFrames,
                    peakResidentKilobytes: peak)
    }

    /// `cpu` seconds split: each inference pool's jobs; the caller side's VAD; the rest of the media
    /// path's stages (each stage's timed frames scaled up to all its frames); and what is left
    /// (SIP, RTP, the session and the dialogue, the database, the runtime).
    static func parts(of cpu: Double, before: PrometheusText, after: PrometheusText) -> [String: Double] {
        var parts = after.increases("voicebridge_inference_cpu_seconds_total", by: "pool", since: before)
        for (labels, seconds) in after.values("voicebridge_stage_processing_seconds_total") {
            let timed = (after.value("voicebridge_stage_timed_frames_total", labels) ?? 0) - (before.value("voicebridge_stage_timed_frames_total", labels) ?? 0)
            let frames = (after.value("voicebridge_stage_frames_in_total", labels) ?? 0) - (before.value("voicebridge_stage_frames_in_total", labels) ?? 0)
            guard timed > 0 else { continue }
            let spent = (seconds - (before.value("voicebridge_stage_processing_seconds_total", labels) ?? 0)) * frames / timed
            parts[labels["stage"] == "vad" ? "vad" : "media", default: 0] += spent
        }
        parts["rest"] = cpu - parts.values.reduce(0, +)
        return parts
    }
}

/// A `voicebridge simulate-callee` child process at nice 10, on a SIP port the kernel picks.
final class CalleeProcess: Sendable {
    let sipPort: Int
    private let process: Process

    private init(process: Process, sipPort: Int) {
        self.process = process
        self.sipPort = sipPort
    }

    /// Starts the callee and returns once it says where it listens (within 30 s: it loads Moonshine first).
    static func start(binary: String, rtpPorts: ClosedRange<Int>) async throws -> CalleeProcess {
        let process = Process(), errors = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
        process.arguments = ["-n", "10", binary, "simulate-callee", "--port", "0", "--rtp-ports", "\(rtpPorts.lowerBound)-\(rtpPorts.upperBound)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        // Its later lines are read and dropped (the newest few kept), so that a full pipe never stops it.
        let (lines, line) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(64))
        let pending = Locked("")
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else { line.finish(); return }
            let complete = pending.withLock { text -> [String] in
                text += String(decoding: data, as: UTF8.self)
                var parts = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                text = parts.removeLast()
                return parts
            }
            for one in complete { line.yield(one) }
        }
        try process.run()
        let port = try await withTimeout(.seconds(30)) {
            for await text in lines where text.contains("simulated callee listening") {
                if let match = text.firstMatch(of: /sip=[^ ]*:([0-9]+)/), let port = Int(match.1) { return port }
            }
            throw BenchError("voicebridge simulate-callee ended without saying where it listens")
        }
        return CalleeProcess(process: process, sipPort: port)
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
