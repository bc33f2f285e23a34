import Calls
import Foundation
import Personas

/// `make bench`'s `menus` suite: held-out phone menus (`CalleePersona.menus`, `.koreanMenus`) as
/// real calls through `voicebridge serve` — the simulated callee's menu of one to three levels,
/// each waiting for its key as an RFC 4733 event, then the person who answers the call's question;
/// or a menu with no way to the call's purpose. Right: the end state, the question's status and
/// answer; the median seconds from answer to the person's first words heard by the agent.
extension BenchMain {
    static func menus(output: String, concurrency: Int) async throws {
        var rows: [[String]] = [], json: [String: Any] = [:], differed: [[String]] = []
        let share = { (m: Int, t: Int) in t == 0 ? 0 : Double(m) * 100 / Double(t) }
        var right = 0, total = 0
        for (set, personas, language) in [("English", CalleePersona.menus, nil), ("Korean", CalleePersona.koreanMenus, "ko")] as [(String, [CalleePersona], String?)] {
            print("== Phone menus, \(set): \(personas.count) real calls, \(concurrency) at a time")
            let run = try await PersonaBenchmark.run(serverBinary: try serverBinary(), concurrency: concurrency, personas: personas,
                                                     language: language, environment: ["VOICEBRIDGE_ENGINE_READ_BACK": "none"])
            let outcomes = run.outcomes
            let whole = outcomes.filter { $0.mismatches.isEmpty }.count
            let answered = outcomes.answered
            right += whole
            total += outcomes.count
            rows.append([set, "\(whole)/\(outcomes.count) (\(format(share(whole, outcomes.count), digits: 1)) %)", "\(answered.0)/\(answered.1)"])
            differed += outcomes.differences(prefix: "\(set): ")
            json[set.lowercased()] = [
                "calls": outcomes.count, "right": whole, "answered_wrong": answered.0, "answered_total": answered.1,
                "mismatches": Dictionary(uniqueKeysWithValues: outcomes.filter { !$0.mismatches.isEmpty }.map { ($0.persona, $0.mismatches) }),
            ] as [String: Any]
        }
        rows.append(["all", "\(right)/\(total) (\(format(share(right, total), digits: 1)) %)", "goal ≥ 95 %"])
        print(table(["menu set", "calls entirely right (person reached and answered, or no route)", "answered but wrong"], rows))
        if !differed.isEmpty { print(table(["menu call", "what differed"], differed)) }
        json["right"] = right
        json["calls"] = total
        json["goal"] = "≥ 95 % of calls: through the menu to the person, who answered; or no route"
        try write(json, to: output, as: "menus.json")
    }
}
