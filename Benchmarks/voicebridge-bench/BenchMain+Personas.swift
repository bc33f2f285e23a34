import Calls
import Foundation
import Personas

/// `make bench`'s `personas` and `personas-espeak` suites: the catalogue as real calls, and (in
/// Piper's voice) the same personas as test runs in virtual time beside them.
extension BenchMain {
    static func personas(output: String, concurrency: Int, voices: PersonaVoices = .piper) async throws {
        let spoken = voices == .piper ? "Piper's voice" : "espeak-ng's voice (agent and callee)"
        print("== Simulated-callee personas: \(CalleePersona.catalogue.count) real calls through `voicebridge serve` (local engine; \(spoken) → SIP/RTP → Moonshine), \(concurrency) at a time")
        let environment = voices == .piper ? [:] : ["VOICEBRIDGE_ENGINE_LOCAL_VOICE": "en-us", "VOICEBRIDGE_SIP_SIMULATED_CALLEE_VOICE": "espeak"]
        let run = try await PersonaBenchmark.run(serverBinary: try serverBinary(), concurrency: concurrency, environment: environment)
        let outcomes = run.outcomes
        let turns = EngineBenchmark.percentiles(run.turnLatencies)
        let heard = EngineBenchmark.percentiles(run.transcriptLatencies)
        let recognition = EngineBenchmark.percentiles(run.recognitionTimes)
        let statuses = outcomes.statuses
        let summaries = outcomes.summaries
        let states = outcomes.filter(\.stateMatches).count
        let share = { (m: Int, t: Int) in t == 0 ? 0 : Double(m) * 100 / Double(t) }
        print(table(["measure", "matched", "share %", "goal"], [
            ["stored question statuses", "\(statuses.0)/\(statuses.1)", format(share(statuses.0, statuses.1), digits: 1), "≥ 97"],
            ["normalised answers (answer_summary)", "\(summaries.0)/\(summaries.1)", format(share(summaries.0, summaries.1), digits: 1), "—"],
            ["call end states", "\(states)/\(outcomes.count)", format(share(states, outcomes.count), digits: 1), "—"],
            ["personas entirely right", "\(outcomes.filter { $0.mismatches.isEmpty }.count)/\(outcomes.count)", "", ""],
        ]))
        print(table(["turn latency, \(concurrency) local calls at once", "p50 ms", "p99 ms", "turns", "goal"], [
            ["caller's speech end → reply's first frame", format(turns.p50, digits: 0), format(turns.p99, digits: 0), "\(turns.samples)", "p50 ≤ 1000, p99 ≤ 2000"],
            ["… of which until the words were text", format(heard.p50, digits: 0), format(heard.p99, digits: 0), "\(heard.samples)", ""],
            ["… of which transcribing (Moonshine, queue included)", format(recognition.p50, digits: 0), format(recognition.p99, digits: 0), "\(recognition.samples)", ""],
        ]))
        let wrong = outcomes.filter { !$0.mismatches.isEmpty }
        if !wrong.isEmpty { print(table(["persona", "what differed"], wrong.differences())) }
        var json: [String: Any] = [
            "personas": outcomes.count, "concurrency": concurrency,
            "statuses_matched": statuses.0, "statuses_total": statuses.1, "status_share_pct": share(statuses.0, statuses.1),
            "summaries_matched": summaries.0, "summaries_total": summaries.1, "summary_share_pct": share(summaries.0, summaries.1),
            "states_matched": states, "mismatches": Dictionary(uniqueKeysWithValues: wrong.map { ($0.persona, $0.mismatches) }),
            "goal": "≥ 97 % of stored statuses",
            "turn_latency_ms": ["p50": turns.p50, "p99": turns.p99, "turns": turns.samples, "goal": "p50 ≤ 1000, p99 ≤ 2000"],
            "transcript_latency_ms": ["p50": heard.p50, "p99": heard.p99, "turns": heard.samples],
            "recognition_ms": ["p50": recognition.p50, "p99": recognition.p99, "turns": recognition.samples],
        ]
        if voices == .piper { json["virtual_time"] = try await virtualPersonas(beside: outcomes, concurrency: concurrency) }
        try write(json, to: output, as: voices == .piper ? "personas.json" : "personas-espeak.json")
    }

    /// The same personas as test runs in virtual time, beside the real-time run's `outcomes`:
    /// both runs' shares, the speed-up, and every persona whose differences are not the same.
    static func virtualPersonas(beside realTime: [PersonaBenchmark.Outcome], concurrency: Int) async throws -> [String: Any] {
        print("== The same personas as test runs (`POST /api/tests`) in virtual time, \(concurrency) at a time, beside the real-time run")
        let virtual = try await PersonaBenchmark.runInVirtualTime(serverBinary: try serverBinary(), concurrency: concurrency)
        let share = { (outcomes: [PersonaBenchmark.Outcome]) -> (statuses: (Int, Int), summaries: (Int, Int), states: Int) in
            (outcomes.statuses,
             outcomes.summaries,
             outcomes.filter(\.stateMatches).count)
        }
        let real = share(realTime), inVirtual = share(virtual.run.outcomes)
        print(table(["measure", "real time", "virtual time"], [
            ["stored question statuses", "\(real.statuses.0)/\(real.statuses.1)", "\(inVirtual.statuses.0)/\(inVirtual.statuses.1)"],
            ["normalised answers (answer_summary)", "\(real.summaries.0)/\(real.summaries.1)", "\(inVirtual.summaries.0)/\(inVirtual.summaries.1)"],
            ["call end states", "\(real.states)/\(realTime.count)", "\(inVirtual.states)/\(virtual.run.outcomes.count)"],
            ["calls' clock / real time", "", "\(format(virtual.callSeconds, digits: 1)) s in \(format(virtual.realSeconds, digits: 1)) s: \(format(virtual.speedUp, digits: 1))× real time"],
        ]))
        let differing = zip(realTime, virtual.run.outcomes).filter { $0.0.mismatches != $0.1.mismatches }
        if !differing.isEmpty {
            print(table(["persona", "real time", "virtual time"], differing.map { real, virtual in
                [real.persona, real.mismatches.isEmpty ? "right" : real.mismatches.joined(separator: "; "),
                 virtual.mismatches.isEmpty ? "right" : virtual.mismatches.joined(separator: "; ")]
            }))
        }
        return [
            "statuses_matched": inVirtual.statuses.0, "statuses_total": inVirtual.statuses.1,
            "summaries_matched": inVirtual.summaries.0, "summaries_total": inVirtual.summaries.1, "states_matched": inVirtual.states,
            "call_seconds": virtual.callSeconds, "real_seconds": virtual.realSeconds, "speed_up": virtual.speedUp,
            "personas_differing_from_real_time": Dictionary(uniqueKeysWithValues: differing.map { ($0.0.persona, ["real_time": $0.0.mismatches, "virtual_time": $0.1.mismatches]) }),
        ]
    }
}
