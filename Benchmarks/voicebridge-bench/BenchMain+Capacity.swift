import Foundation

/// `make bench`'s `capacity` suite: local-engine calls at once, step by step (`CapacityBenchmark`).
extension BenchMain {
    /// `admitted`: after the steps, that many slots placing calls at once to a server that admits
    /// them as its turns allow (`engine.local.turn_latency_goal_ms`); 0: none.
    static func capacity(output: String, steps: [Int], admitted: Int, seconds: Double) async throws {
        print("== Capacity: local-engine persona calls kept going \(format(seconds, digits: 0)) s at once (\(steps.map(String.init).joined(separator: ", "))\(admitted > 0 ? "; \(admitted) admitted by the server's turn-latency goal" : "")), `voicebridge serve` → SIP/RTP → `voicebridge simulate-callee` in its own process (nice 10)")
        let binary = try serverBinary()
        var results: [CapacityBenchmark.Step] = []
        for (n, byServer) in steps.map({ ($0, false) }) + (admitted > 0 ? [(admitted, true)] : []) {
            let step = try await CapacityBenchmark.step(calls: n, seconds: seconds, serverBinary: binary, admitted: byServer)
            results.append(step)
            let turns = EngineBenchmark.percentiles(step.run.turnLatencies)
            FileHandle.standardError.write(Data("capacity: \(label(step)), turn p50 \(format(turns.p50, digits: 0)) ms, p99 \(format(turns.p99, digits: 0)) ms, \(format(step.perCallMinute(step.cpuSeconds), digits: 2)) CPU s per call minute\n".utf8))
        }
        let parts = Set(results.flatMap(\.cpuByPart.keys)).sorted { a, b in
            let order = ["moonshine", "smart-turn", "piper", "espeak", "vad", "media", "rest"]
            return (order.firstIndex(of: a) ?? order.count, a) < (order.firstIndex(of: b) ?? order.count, b)
        }
        print(table(["calls at once", "live: mean / most", "calls", "turn p50 ms", "turn p99 ms", "turns", "statuses", "call minutes", "wall s", "late frames (> 40 ms)", "peak RSS MB", "goal"], results.map { step in
            let turns = EngineBenchmark.percentiles(step.run.turnLatencies), statuses = step.run.outcomes.statuses
            return [label(step), "\(format(step.liveCalls.mean, digits: 1)) / \(step.liveCalls.max)", "\(step.placedCalls)", format(turns.p50, digits: 0), format(turns.p99, digits: 0), "\(turns.samples)", "\(statuses.matched)/\(statuses.total)",
                    format(step.callSeconds / 60, digits: 1), format(step.wallSeconds, digits: 0), "\(step.lateFrames) (\(step.audiblyLateFrames))",
                    format(Double(step.peakResidentKilobytes) / 1024, digits: 0), step.calls == 20 ? "p50 ≤ 800, p99 ≤ 1500, none > 40 ms" : ""]
        }))
        print("CPU seconds per minute of call, by where it went (inference pools on their threads' clocks; VAD and the media path from the stages' meters; the rest of the server):")
        print(table(["calls at once", "all"] + parts, results.map { step in
            [label(step), format(step.perCallMinute(step.cpuSeconds), digits: 2)] + parts.map { format(step.perCallMinute(step.cpuByPart[$0] ?? 0), digits: 2) }
        }))
        let pools = Set(results.flatMap(\.jobsByPool.keys)).sorted()
        print("Inference jobs per turn (transcriptions, end-of-turn verdicts, syntheses: what each turn asks of the models):")
        print(table(["calls at once"] + pools, results.map { step in
            let turns = Double(max(1, step.run.turnLatencies.count))
            return [label(step)] + pools.map { format((step.jobsByPool[$0] ?? 0) / turns, digits: 2) }
        }))
        // Where the turns over the p99 goal waited: each step of them, in ms after the caller's speech end.
        let steps = ["turn_ended_ms", "transcript_ms", "reply_started_ms", "first_audio_ms", "first_frame_ms", "first_byte_stt_ms", "first_byte_tts_ms"]
        for step in results where !step.run.slowTurns.isEmpty {
            print("Turns over \(format(PersonaBenchmark.Run.slowTurnMs, digits: 0)) ms at \(label(step)), each step in ms after the caller's speech end:")
            print(table(steps, step.run.slowTurns.map { turn in steps.map { turn[$0].map(String.init) ?? "" } }))
        }
        // Statuses that differ at one step and not another say whether load or the personas drawn
        // moved them (a step of 5 calls draws fewer of the catalogue's personas than one of 20).
        for step in results {
            let differed = step.run.outcomes.differences()
            guard !differed.isEmpty else { continue }
            print("What differed at \(label(step)):")
            print(table(["persona", "what differed"], differed))
        }
        try write(["steps": results.map { step -> [String: Any] in
            let turns = EngineBenchmark.percentiles(step.run.turnLatencies), statuses = step.run.outcomes.statuses
            return ["calls": step.calls, "live_calls_mean": step.liveCalls.mean, "live_calls_max": step.liveCalls.max, "calls_placed": step.placedCalls, "turn_latency_ms": ["p50": turns.p50, "p99": turns.p99, "turns": turns.samples],
                    "statuses_matched": statuses.matched, "statuses_total": statuses.total, "call_seconds": step.callSeconds, "wall_seconds": step.wallSeconds,
                    "cpu_seconds": step.cpuSeconds, "cpu_s_per_call_minute": step.perCallMinute(step.cpuSeconds),
                    "cpu_s_per_call_minute_by_part": step.cpuByPart.mapValues(step.perCallMinute), "inference_jobs": step.jobsByPool,
                    "late_frames": step.lateFrames, "audibly_late_frames": step.audiblyLateFrames, "peak_rss_kb": step.peakResidentKilobytes,
                    "admitted_limit": step.admittedLimit.map { ["min": $0.min, "max": $0.max, "last": $0.last] } as Any]
        }, "goal": "20 calls at once: turn p50 ≤ 800 ms, p99 ≤ 1500 ms, no frame more than 40 ms late; statuses no worse than at 5",
           "machine": ["cores": ProcessInfo.processInfo.activeProcessorCount]] as [String: Any], to: output, as: "capacity.json")
    }

    /// A step's name in the tables: its calls at once, or the slots and the limit the server took.
    static func label(_ step: CapacityBenchmark.Step) -> String {
        guard let limit = step.admittedLimit else { return "\(step.calls)" }
        return "\(step.calls) slots, admitted (limit \(limit.min)–\(limit.max), last \(limit.last))"
    }
}
