import Calls
import Foundation
import Personas

/// `make bench`'s `languages` suite: held-out callers who answer in the call's other language
/// (`CalleePersona.switchingLanguage`) as real calls through `voicebridge serve`, each made from a
/// template that lists both languages with the questions translated. Right: the call's end state
/// and every question's status and answer; the answers stored as answered that are wrong beside it.
extension BenchMain {
    static func languages(output: String, concurrency: Int) async throws {
        var rows: [[String]] = [], json: [String: Any] = [:], differed: [[String]] = []
        let share = { (m: Int, t: Int) in t == 0 ? 0 : Double(m) * 100 / Double(t) }
        let all = CalleePersona.switchingLanguage
        let sets = [("Korean calls answered in English", all.filter { $0.language == "ko" }), ("English calls answered in Korean", all.filter { $0.language == "en" })]
        var right = 0, total = 0, answersRight = 0, answers = 0
        for (set, calls) in sets {
            print("== Switched languages, \(set): \(calls.count) real calls, \(concurrency) at a time")
            let templates: [[String: Any]] = calls.enumerated().map { i, call in
                ["name": "switching \(call.language) \(i)", "purpose": call.language == "ko" ? "고객 안내" : "a customer notice", "questions": call.persona.questions,
                 "language": call.language, "languages": [call.other], "translations": [call.other: ["questions": call.translation]]]
            }
            let run = try await PersonaBenchmark.run(serverBinary: try serverBinary(), concurrency: concurrency, personas: calls.map(\.persona),
                                                     environment: ["VOICEBRIDGE_ENGINE_READ_BACK": "none"], templates: templates)
            let outcomes = run.outcomes
            let whole = outcomes.filter { $0.mismatches.isEmpty }.count
            let statuses = outcomes.statuses, summaries = outcomes.summaries, answered = outcomes.answered
            right += whole
            total += outcomes.count
            answersRight += summaries.matched
            answers += summaries.total
            rows.append([set, "\(whole)/\(outcomes.count)", "\(statuses.matched)/\(statuses.total)",
                         "\(summaries.matched)/\(summaries.total) (\(format(share(summaries.matched, summaries.total), digits: 1)) %)", "\(answered.wrong)/\(answered.total)"])
            differed += outcomes.differences(prefix: "\(set): ")
            json[call(set)] = [
                "calls": outcomes.count, "right": whole, "statuses_right": statuses.matched, "statuses": statuses.total,
                "answers_right": summaries.matched, "answers": summaries.total, "answered_wrong": answered.wrong, "answered_total": answered.total,
                "mismatches": Dictionary(uniqueKeysWithValues: outcomes.filter { !$0.mismatches.isEmpty }.map { ($0.persona, $0.mismatches) }),
            ] as [String: Any]
        }
        rows.append(["all", "\(right)/\(total)", "", "\(answersRight)/\(answers) (\(format(share(answersRight, answers), digits: 1)) %)", "goal: answers ≥ 90 %"])
        print(table(["calls", "entirely right", "statuses", "answers right", "answered but wrong"], rows))
        if !differed.isEmpty { print(table(["switched-language call", "what differed"], differed)) }
        json["right"] = right
        json["calls"] = total
        json["answers_right"] = answersRight
        json["answers"] = answers
        json["goal"] = "≥ 90 % of answers stored right"
        try write(json, to: output, as: "languages.json")
    }

    private static func call(_ set: String) -> String { set.hasPrefix("Korean") ? "korean_calls" : "english_calls" }
}
