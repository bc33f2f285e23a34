import Foundation
import TestSupport

/// Replies started early (cascade): the caller's speech end to the reply's first audio, with and
/// without, against the fake servers at fixed latencies (`EarlyReplyProbe`): words fixed 200 ms
/// after speech ends, the turn called over at 500 ms, the model's first token at 350 ms.
enum EarlyReplyBenchmark {
    struct Figure {
        var name: String
        var p50: Double
        var extraInputTokens: Double
    }

    static let turns = 6

    static func run() async throws -> [Figure] {
        var figures: [Figure] = []
        for (name, final) in [("same words", ""), ("words changed at the turn's end", "But only after lunch.")] {
            var with: [Double] = [], without: [Double] = [], extra: [Double] = []
            for _ in 0..<turns {
                let early = try await EarlyReplyProbe.run(final: final, earlyReplies: true, modelLatency: .milliseconds(350))
                let late = try await EarlyReplyProbe.run(final: final, earlyReplies: false, modelLatency: .milliseconds(350))
                with.append(early.latency.totalMilliseconds)
                without.append(late.latency.totalMilliseconds)
                extra.append(Double(early.usage.llmInputTokens - late.usage.llmInputTokens))
            }
            figures.append(Figure(name: name + ", early replies on", p50: median(with), extraInputTokens: median(extra)))
            figures.append(Figure(name: name + ", off", p50: median(without), extraInputTokens: 0))
        }
        return figures
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}

extension BenchMain {
    static func earlyReplies(output: String) async throws {
        print("== Replies started early (cascade, fake servers: words fixed 200 ms after speech ends, turn over at 500 ms, model's first token 350 ms), \(EarlyReplyBenchmark.turns) turns each")
        let figures = try await EarlyReplyBenchmark.run()
        print(table(["case", "speech end → reply audio p50 ms", "extra prompt tokens per turn"],
                    figures.map { [$0.name, format($0.p50, digits: 0), format($0.extraInputTokens, digits: 0)] }))
        try write(figures.map { ["case": $0.name, "latency_p50_ms": $0.p50, "extra_input_tokens": $0.extraInputTokens] }, to: output, as: "early-replies.json")
    }
}
