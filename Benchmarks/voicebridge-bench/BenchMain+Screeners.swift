import Calls
import Foundation
import Personas

/// `make bench`'s `screeners` suite: held-out call screeners (`CalleePersona.screeners`,
/// `.koreanScreeners`) as real calls through `voicebridge serve` — the screener's question as the
/// call is answered, then the person put through (who answers the call's question) or the call
/// turned away. Right: the call's end state (`completed` with the answer, or `screened_out`) and
/// its question's status and answer.
extension BenchMain {
    static func screeners(output: String, concurrency: Int) async throws {
        var rows: [[String]] = [], json: [String: Any] = [:], differed: [[String]] = []
        let share = { (m: Int, t: Int) in t == 0 ? 0 : Double(m) * 100 / Double(t) }
        let sets: [(String, [CalleePersona], String?)] = [
            ("English", CalleePersona.screeners, nil),
            ("Korean", CalleePersona.koreanScreeners, "ko"),
        ]
        var right = 0, total = 0
        for (set, personas, language) in sets {
            print("== Call screeners, \(set): \(personas.count) real calls, \(concurrency) at a time")
            let run = try await PersonaBenchmark.run(serverBinary: try serverBinary(), concurrency: concurrency, personas: personas,
                                                     language: language, environment: ["VOICEBRIDGE_ENGINE_READ_BACK": "none"])
            let outcomes = run.outcomes
            let whole = outcomes.filter { $0.mismatches.isEmpty }.count
            let reached = zip(personas, outcomes).filter { $0.0.state == .completed }
            let screenedOut = zip(personas, outcomes).filter { $0.0.state == .screenedOut }
            let answered = outcomes.answered
            right += whole
            total += outcomes.count
            rows.append([set, "\(whole)/\(outcomes.count) (\(format(share(whole, outcomes.count), digits: 1)) %)",
                         "\(reached.filter { $0.1.mismatches.isEmpty }.count)/\(reached.count)",
                         "\(screenedOut.filter { $0.1.stateMatches }.count)/\(screenedOut.count)",
                         "\(answered.0)/\(answered.1)"])
            differed += outcomes.differences(prefix: "\(set): ")
            json[set.lowercased()] = [
                "calls": outcomes.count, "right": whole, "person_reached_right": reached.filter { $0.1.mismatches.isEmpty }.count,
                "person_reached_total": reached.count, "screened_out_right": screenedOut.filter { $0.1.stateMatches }.count,
                "screened_out_total": screenedOut.count, "answered_wrong": answered.0, "answered_total": answered.1,
                "mismatches": Dictionary(uniqueKeysWithValues: outcomes.filter { !$0.mismatches.isEmpty }.map { ($0.persona, $0.mismatches) }),
            ] as [String: Any]
        }
        rows.append(["all", "\(right)/\(total) (\(format(share(right, total), digits: 1)) %)", "goal ≥ 95 %", "", ""])
        print(table(["screener set", "calls entirely right", "person reached, answer right", "screened_out stored", "answered but wrong"], rows))
        if !differed.isEmpty { print(table(["screener call", "what differed"], differed)) }
        json["right"] = right
        json["calls"] = total
        json["goal"] = "≥ 95 % of calls: the person reached and answered, or screened_out"
        try write(json, to: output, as: "screeners.json")
    }
}
