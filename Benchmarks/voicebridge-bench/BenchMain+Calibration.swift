import Calls
import Foundation
import Personas

/// `make bench`'s `calibration` suite: where `AnswerConfidence.calibrated` comes from. The tuning
/// personas (`CalleePersona.catalogue`, `.korean` — never the held-out ones, which report the
/// result) as real calls with the floor off, on a clean line and on a hissing one, so every answer
/// the dialogue reads is stored with its score; then, for each candidate floor, how many right answers fall below it (each costs a
/// re-ask, and perhaps the answer) and how many wrong ones (each caught). The floor printed is the
/// one that catches the most wrong answers for the right ones it sends back, a wrong answer
/// weighing twice a re-asked right one (an operator acts on a wrong one).
extension BenchMain {
    /// How far below full scale the bad line's hiss peaks: enough that some words come out wrong.
    static let lineHiss = 25
    static let candidateFloors: [Double] = [0.02, 0.05, 0.08, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8]

    static func calibration(output: String, concurrency: Int) async throws {
        var json: [String: Any] = [:]
        for (set, personas, language, environment) in [
            ("English", CalleePersona.catalogue, nil, [:]),
            ("Korean", CalleePersona.korean, "ko", ["VOICEBRIDGE_ENGINE_READ_BACK": "none"]),
        ] as [(String, [CalleePersona], String?, [String: String])] {
            // As written, and again over a bad line: a phone line hisses, and the floor is for what it garbles.
            var scored: [(confidence: Double, right: Bool)] = []
            for (line, cast) in [("clean line", personas), ("line hissing at −\(lineHiss) dB", personas.map { $0.overHiss(lineHiss) })] {
                print("== Answer confidence, \(set) tuning personas, \(line): \(cast.count) real calls, floor off, \(concurrency) at a time")
                let run = try await PersonaBenchmark.run(serverBinary: try serverBinary(), concurrency: concurrency, personas: cast, language: language,
                                                         environment: environment.merging(["VOICEBRIDGE_ENGINE_LOCAL_ANSWER_CONFIDENCE": "0"]) { $1 })
                scored += run.outcomes.flatMap(\.answeredConfidences)
            }
            let (rows, best) = floorTable(scored)
            print(table(["floor", "right answers below (re-asked)", "wrong answers below (caught)", "right kept", "wrong kept"], rows))
            print("\(set): \(scored.count) answers stored, \(scored.count { !$0.right }) wrong; best floor \(format(best, digits: 2))")
            json[set.lowercased()] = ["answers": scored.map { ["confidence": $0.confidence, "right": $0.right] }, "best_floor": best] as [String: Any]
        }
        try write(json, to: output, as: "calibration.json")
    }

    /// Each candidate floor's counts, and the floor that scores best (2 × wrong caught − right
    /// re-asked; the lowest such floor on a tie).
    static func floorTable(_ scored: [(confidence: Double, right: Bool)]) -> (rows: [[String]], best: Double) {
        var best = (floor: 0.0, score: 0)
        var rows: [[String]] = []
        for floor in candidateFloors {
            let rightBelow = scored.count { $0.right && $0.confidence < floor }
            let wrongBelow = scored.count { !$0.right && $0.confidence < floor }
            let score = 2 * wrongBelow - rightBelow
            if score > best.score { best = (floor, score) }
            rows.append([format(floor, digits: 2), "\(rightBelow)", "\(wrongBelow)", "\(scored.count { $0.right } - rightBelow)", "\(scored.count { !$0.right } - wrongBelow)"])
        }
        return (rows, best.floor)
    }
}

extension CalleePersona {
    /// The persona with every line it speaks said over hiss `decibels` below full scale
    /// (`<noise …>`); lines that are not words (`<silence>`, `<hangup>`, `<busy>` …) as they were.
    func overHiss(_ decibels: Int) -> CalleePersona {
        let standalone = ["<hangup>", "<silence>", "<busy>", "<reject>", "<no_answer>", "<says", "<voicemail", "<hum"]
        var noisy = self
        noisy.script = script.map { line in standalone.contains { line.hasPrefix($0) } ? line : "<noise \(decibels)> " + line }
        return noisy
    }
}
