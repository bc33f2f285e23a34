import Calls
import Foundation
import Personas

/// `make bench`'s `line` suite: the persona catalogue as test runs in virtual time over simulated
/// lines (`POST /api/tests` with `"line"`) — babble, street, an office and a television behind the
/// callee at 15, 10 and 5 dB SNR, and the agent's own voice returned at −10 dB after 150 ms — beside
/// the same run on a clean line; and silent callees on the echoing line, counting the calls where
/// the agent cut itself off (the caller said nothing, so every barge-in is its own echo). The echo
/// runs twice: without and with `engine.echo_cancellation` (`echo-aec`, `echo-silent-aec`); the
/// clean line, street noise at 5 dB and voices at 10 dB again with `engine.noise_suppression` (`-ns`),
/// and with `engine.hold_background_voices` (`-bg`).
extension BenchMain {
    struct LineRun {
        var name: String
        var line: [String: Any]?
        /// The server's settings beyond the defaults (`cancelling`, `suppressing`).
        var environment: [String: String]
        var run: PersonaBenchmark.Run
        var realSeconds: Double
    }

    static let lineNoises = ["babble", "street", "office", "television"]
    static let lineSNRs = [15, 10, 5]
    static var echo: [String: Any] { ["echo_db": -10, "echo_delay_ms": 150] }
    static let cancelling = ["VOICEBRIDGE_ENGINE_ECHO_CANCELLATION": "true"]
    static let suppressing = ["VOICEBRIDGE_ENGINE_NOISE_SUPPRESSION": "true"]
    static let holding = ["VOICEBRIDGE_ENGINE_HOLD_BACKGROUND_VOICES": "true"]

    /// `conditions`: which to run (`clean`, `babble-10`, `echo` …; nil: all).
    static func line(output: String, concurrency: Int, conditions: Set<String>? = nil, silentCalls: Int = 50) async throws {
        var planned: [(String, [String: Any]?, [String: String])] = [("clean", nil, [:])]
        for noise in lineNoises { for snr in lineSNRs { planned.append(("\(noise)-\(snr)", ["noise": noise, "snr_db": snr], [:])) } }
        planned += [("echo", echo, [:]), ("echo-aec", echo, cancelling), ("clean-aec", nil, cancelling), ("clean-ns", nil, suppressing)]
        for (noise, snr) in [("street", 5), ("babble", 10), ("office", 10)] { planned.append(("\(noise)-\(snr)-ns", ["noise": noise, "snr_db": snr], suppressing)) }
        planned.append(("clean-bg", nil, holding))
        for (noise, snr) in [("babble", 15), ("babble", 10), ("babble", 5), ("office", 10), ("television", 10), ("street", 5)] {
            planned.append(("\(noise)-\(snr)-bg", ["noise": noise, "snr_db": snr], holding))
        }
        planned = planned.filter { conditions?.contains($0.0) ?? true }
        print("== The personas over simulated lines: \(CalleePersona.catalogue.count) test runs in virtual time a line, \(concurrency) at a time; \(planned.map(\.0).joined(separator: ", "))")
        var runs: [LineRun] = []
        for (name, line, environment) in planned {
            let started = ContinuousClock.now
            let virtual = try await PersonaBenchmark.runInVirtualTime(serverBinary: try serverBinary(), concurrency: concurrency,
                                                                     environment: environment, line: line)
            runs.append(LineRun(name: name, line: line, environment: environment, run: virtual.run, realSeconds: started.duration(to: .now).totalSeconds))
            FileHandle.standardError.write(Data("line \(name): \(virtual.run.outcomes.statuses.matched)/\(virtual.run.outcomes.statuses.total) statuses\n".utf8))
        }
        let share = { (m: Int, t: Int) in t == 0 ? 0 : Double(m) * 100 / Double(t) }
        print(table(["line", "statuses", "share %", "answers", "wrong answers stored as answered", "calls the agent was cut", "real s"], runs.map { r in
            let statuses = r.run.outcomes.statuses, summaries = r.run.outcomes.summaries, answered = r.run.outcomes.answered
            return [r.name, "\(statuses.matched)/\(statuses.total)", format(share(statuses.matched, statuses.total), digits: 1),
                    "\(summaries.matched)/\(summaries.total)", "\(answered.wrong) of \(answered.total)",
                    "\(r.run.bargeIns.filter { $0 > 0 }.count)/\(r.run.bargeIns.count)", format(r.realSeconds, digits: 0)]
        }))
        var json: [String: Any] = ["goal": "≥ 95 % of statuses at 10 dB and with echo; 0 silent calls where the agent cuts itself off"]
        for r in runs {
            let statuses = r.run.outcomes.statuses, summaries = r.run.outcomes.summaries, answered = r.run.outcomes.answered
            json[r.name] = [
                "line": r.line ?? [:], "echo_cancellation": r.environment == cancelling, "noise_suppression": r.environment == suppressing, "hold_background_voices": r.environment == holding, "statuses_matched": statuses.matched, "statuses_total": statuses.total,
                "status_share_pct": share(statuses.matched, statuses.total), "summaries_matched": summaries.matched, "summaries_total": summaries.total,
                "wrong_answers_stored": answered.wrong, "answered_total": answered.total,
                "calls_cut": r.run.bargeIns.filter { $0 > 0 }.count, "real_seconds": r.realSeconds,
                "mismatches": Dictionary(r.run.outcomes.filter { !$0.mismatches.isEmpty }.map { ($0.persona, $0.mismatches) }) { first, _ in first },
            ]
        }
        for (name, cancel) in [("echo-silent", false), ("echo-silent-aec", true)] where conditions?.contains(name) ?? true {
            json[name.replacingOccurrences(of: "-", with: "_")] = try await silentOnEcho(calls: silentCalls, concurrency: concurrency, cancelling: cancel)
        }
        try write(json, to: output, as: "line.json")
    }

    /// `calls` callees who say nothing, on the echoing line: how many calls the agent cut itself
    /// off in (its report's barge-ins), and how often in all.
    static func silentOnEcho(calls: Int, concurrency: Int, cancelling cancel: Bool) async throws -> [String: Any] {
        print("== \(calls) silent callees, the agent's echo returned at −10 dB after 150 ms\(cancel ? ", echo cancellation on" : ""): how often the agent stops itself")
        let server = try await PersonaBenchmark.personaServer(try serverBinary(), concurrency: concurrency, environment: cancel ? cancelling : [:])
        defer { server.stop() }
        let api = "http://127.0.0.1:\(server.httpPort)/api"
        let template = "silent-line"
        let created = try await PersonaBenchmark.json(post: "\(api)/templates", body: ["name": template, "purpose": "tomorrow's 2 pm meeting",
                                                                                          "questions": ["Can you attend?", "Does the place need to change?"]])
        guard created["id"] != nil else { throw BenchError("creating template \(template) failed: \(created)") }
        let suite = ["name": template, "personas": (1...calls).map { ["name": "silent \($0)", "says": ["<silence>"]] }] as [String: Any]
        let yaml = String(decoding: try JSONSerialization.data(withJSONObject: suite), as: UTF8.self)
        let result = try await PersonaBenchmark.testRun(api, body: ["suite": yaml, "template": template, "parallel": concurrency, "time": "virtual", "line": echo])
        var cut = 0, bargeIns = 0
        for persona in result["personas"] as? [[String: Any]] ?? [] {
            guard let id = persona["call_id"] as? String else { throw BenchError("a silent callee without its call: \(persona)") }
            // Cut (a barge-in) or held (speech heard over it, then judged not to be one): it stopped.
            let report = try await PersonaBenchmark.json(get: "\(api)/outbound/\(id)/report")
            let held = ((report["interruption_counts"] as? [String: Any])?["held_ms"] as? [Any])?.count ?? 0
            let count = ((report["interruptions"] as? [Any])?.count ?? 0) + held
            if count > 0 { cut += 1 }
            bargeIns += count
        }
        print(table(["silent calls", "calls the agent stopped itself in", "stops in all (cut or held)", "goal"], [["\(calls)", "\(cut)", "\(bargeIns)", "0 calls"]]))
        return ["calls": calls, "calls_stopped": cut, "stops": bargeIns, "echo_cancellation": cancel, "goal": "0 calls"]
    }
}
