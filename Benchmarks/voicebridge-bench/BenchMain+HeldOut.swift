import Calls
import Dialogue
import Foundation
import Personas
import Realtime

/// `make bench`'s `held-out` suite: the personas nothing was tuned on (`CalleePersona.ninthHeldOut`,
/// `.koreanHeldOut`; the first eight English sets, `.heldOut` to `.eighthHeldOut`, informed readings
/// on 7 Dec and are reported beside them as tuned on) as real calls — English in Piper's
/// voice, Korean in espeak-ng's Korean voice
/// (read-back off: the simulated callee does not hear Korean). The figure that matters most to an
/// operator is the answers stored as `answered` that are wrong. While the calibrated
/// answer-confidence floor is a floor (not 0), each set runs again with it off: the figure from
/// before it. At 0 those runs would repeat the first ones call for call, so they are left out.
extension BenchMain {
    static func heldOut(output: String, concurrency: Int) async throws {
        var rows: [[String]] = [], json: [String: Any] = [:], differed: [[String]] = []
        let share = { (m: Int, t: Int) in t == 0 ? 0 : Double(m) * 100 / Double(t) }
        var sets: [(String, [CalleePersona], String?, [String: String])] = [
            ("English", CalleePersona.ninthHeldOut, nil, [:]),
            ("English, eighth set (tuned on)", CalleePersona.eighthHeldOut, nil, [:]),
            ("English, seventh set (tuned on)", CalleePersona.seventhHeldOut, nil, [:]),
            ("English, sixth set (tuned on)", CalleePersona.sixthHeldOut, nil, [:]),
            ("English, fifth set (tuned on)", CalleePersona.fifthHeldOut, nil, [:]),
            ("English, fourth set (tuned on)", CalleePersona.fourthHeldOut, nil, [:]),
            ("English, third set (tuned on)", CalleePersona.thirdHeldOut, nil, [:]),
            ("English, second set (tuned on)", CalleePersona.secondHeldOut, nil, [:]),
            ("English, first set (tuned on)", CalleePersona.heldOut, nil, [:]),
            ("Korean", CalleePersona.koreanHeldOut, "ko", ["VOICEBRIDGE_ENGINE_READ_BACK": "none"]),
        ]
        // `HELD_OUT_SETS="English;Korean"` (labels, `;` between): those sets only — a before/after of one.
        if let only = ProcessInfo.processInfo.environment["HELD_OUT_SETS"]?.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            sets = sets.filter { only.contains($0.0) }
        }
        if AnswerConfidence.calibratedFloor > 0 {
            // The same calls as before the answer-confidence floor: every answer read is stored.
            sets += sets.map { set, personas, language, environment in
                ("\(set), floor off", personas, language, environment.merging(["VOICEBRIDGE_ENGINE_LOCAL_ANSWER_CONFIDENCE": "0"]) { $1 })
            }
        }
        for (set, personas, language, environment) in sets {
            print("== Held-out personas, \(set): \(personas.count) real calls, \(concurrency) at a time")
            let run = try await PersonaBenchmark.run(serverBinary: try serverBinary(), concurrency: concurrency, personas: personas,
                                                     language: language, environment: environment)
            let outcomes = run.outcomes
            let statuses = outcomes.statuses
            let summaries = outcomes.summaries
            let answered = outcomes.answered
            let turns = EngineBenchmark.percentiles(run.turnLatencies)
            rows.append([set, "\(statuses.0)/\(statuses.1) (\(format(share(statuses.0, statuses.1), digits: 1)) %)",
                         "\(summaries.0)/\(summaries.1)", "\(answered.0)/\(answered.1) (\(format(share(answered.0, answered.1), digits: 1)) %)",
                         format(turns.p50, digits: 0), set.hasPrefix("English") ? "≥ 97 %, wrong ≤ 1 %" : "≥ 85 %, wrong ≤ 1 %, p50 ≤ 1500"])
            differed += outcomes.differences(prefix: "\(set): ")
            json[set.lowercased().replacingOccurrences(of: ", ", with: "_").replacingOccurrences(of: " ", with: "_")] = [
                "personas": outcomes.count, "statuses_matched": statuses.0, "statuses_total": statuses.1,
                "summaries_matched": summaries.0, "summaries_total": summaries.1,
                "answered_wrong": answered.0, "answered_total": answered.1, "turn_p50_ms": turns.p50, "turn_p99_ms": turns.p99,
                "mismatches": Dictionary(uniqueKeysWithValues: outcomes.filter { !$0.mismatches.isEmpty }.map { ($0.persona, $0.mismatches) }),
                "transcripts": run.differingTranscripts,
            ] as [String: Any]
        }
        print(table(["held-out set", "stored statuses right", "answers right", "answered but wrong", "turn p50 ms", "goal"], rows))
        if !differed.isEmpty { print(table(["persona", "what differed"], differed)) }
        try write(json, to: output, as: "held-out.json")
    }
}
