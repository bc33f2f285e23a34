import Foundation
import Pipeline
import Realtime
import TestSupport

/// `make bench`'s `turns` suite: the labelled end-of-turn set — caller lines said whole, and the
/// same lines cut where people pause mid-sentence ("My number is zero one zero, …") — spoken by
/// espeak-ng in three voices, band-limited to 8 kHz and μ-law round-tripped as a phone line
/// carries them. For `pause` (a turn ends after 300 ms of silence) and `model` (Smart Turn judges
/// at the VAD's speech end, ~200 ms; unfinished, the engine waits up to its ceiling, `engine.turn_ceiling_ms`): false
/// cut-offs on the cut lines and the wait on the whole ones. The model is also scored on the clean
/// 16 kHz audio, to show what the telephone band costs it, and timed per evaluation.
enum TurnBenchmark {
    /// Caller lines, split where people pause mid-sentence: the whole line, and the part before
    /// the pause — cut out of the line as it is said with the pause in it (espeak-ng's SSML
    /// `<break>`), so that it carries mid-sentence intonation, not the fall of a finished one.
    static let lines: [(before: String, after: String)] = [
        ("My number is zero one zero,", "one two three four, five six seven eight."),
        ("I think", "maybe Tuesday would be best."),
        ("Yes, I can attend", "the meeting."),
        ("We will be four people, two adults and", "two children."),
        ("My name is", "John Smith."),
        ("The appointment should be on Friday at", "ten in the morning."),
        ("No, the original location", "is fine."),
        ("I would like to book a table for", "tomorrow evening."),
        ("Please send it to my", "office address."),
        ("I'd like the fish, and", "a glass of water."),
        ("About twenty", "five people."),
        ("I'm not sure yet, I need to check with", "my wife."),
        ("We are arriving at around", "seven thirty."),
        ("That works for me, but", "only after lunch."),
        ("Can you call me back after", "five?"),
        ("It's for my daughter's", "birthday party."),
        ("My email is john at", "example dot com."),
        ("We need parking for", "two cars."),
        ("Only one person, because", "my husband is away."),
        ("The address is twelve", "Main Street."),
    ]
    static let voices: [(voice: String, wordsPerMinute: Int)] = [("en-us", 160), ("en-gb-x-rp+f3", 150), ("en-us+m3", 190)]
    /// The cut lines' mid-sentence pauses, in turn (ms).
    static let pauses = [250, 400, 600, 900, 1200]
    static let pauseRuleMilliseconds = 300
    /// Silences (ms after the speech) at which the model may judge: the VAD's speech end, then
    /// again while the silence lasts.
    static let judgedAt = [200, 400, 600, 1000]
    /// The engine's wait when every judgement said the caller goes on (`engine.turn_ceiling_ms`).
    static let ceilingMilliseconds = Double(TurnDetector.defaultCeilingMilliseconds)

    struct Item {
        var text: String
        var whole: Bool
        var pause: Int
        /// 16 kHz speech (no silence after it): through the phone line, and clean.
        var phone: [Float]
        var clean: [Float]
    }

    struct Score {
        var falseCutOffs = 0
        var cutLines = 0
        var waits: [Double] = []
        var median: Double { waits.sorted()[waits.count / 2] }
        var mean: Double { waits.reduce(0, +) / Double(max(1, waits.count)) }
        var rate: Double { Double(falseCutOffs) / Double(max(1, cutLines)) }
    }

    /// When the model judges: `once` at the speech end, or `again` at each of `judgedAt`.
    enum Policy: String, CaseIterable { case once, again }

    struct Result {
        var items: Int
        var pause: Score
        var model: [(policy: Policy, threshold: Float, score: Score)]
        var modelClean: Score
        var featuresMilliseconds: Double
        var inferenceMilliseconds: Double
    }

    static let thresholds: [Float] = [0.5, 0.6, 0.7, 0.8, 0.9]
    /// `engine.turn_threshold`'s default and the engine's policy.
    static let defaultThreshold: Float = 0.8
    static let enginePolicy = Policy.once

    /// 16 kHz floats of `samples` at `rate`.
    static func wide(_ samples: [Int16], from rate: Int) throws -> [Float] {
        let resampler = try Resampler(from: rate, to: 16_000)
        return (resampler.process(samples) + resampler.flush()).map { Float($0) / 32768 }
    }

    /// `samples` without the quiet after the last sound.
    static func trimmed(_ samples: [Int16]) -> [Int16] {
        Array(samples[..<(samples.lastIndex { abs(Int($0)) >= 200 }.map { $0 + 1 } ?? 0)])
    }

    static func items() async throws -> [Item] {
        var items: [Item] = []
        let lead = [Int16](repeating: 0, count: 22_050 * 3 / 10)
        for (v, voice) in voices.enumerated() {
            for (l, line) in lines.enumerated() {
                for whole in [true, false] {
                    let said = whole ? try await EspeakCLI.say(ssml: "\(line.before) \(line.after)", voice: voice.voice, wordsPerMinute: voice.wordsPerMinute)
                        : EspeakCLI.beforeBreak(try await EspeakCLI.say(ssml: "\(line.before) <break time=\"1000ms\"/> \(line.after)", voice: voice.voice, wordsPerMinute: voice.wordsPerMinute))
                    let speech = lead + trimmed(said)
                    let down = try Resampler(from: EspeakSynthesizer.sampleRate, to: 8000)
                    let phone = G711.decode(G711.encode(down.process(speech) + down.flush(), law: .muLaw), law: .muLaw)
                    items.append(Item(text: whole ? "\(line.before) \(line.after)" : line.before, whole: whole, pause: pauses[(v * lines.count + l) % pauses.count],
                                      phone: try wide(phone, from: 8000), clean: try wide(speech, from: EspeakSynthesizer.sampleRate)))
                }
            }
        }
        return items
    }

    static func run(deps: String) async throws -> Result {
        let model = try SmartTurnModel.installed(in: deps)
        let items = try await items()
        let mel = WhisperLogMel()
        var pause = Score()
        var featureTimes: [Double] = [], inferenceTimes: [Double] = []
        /// Each item's probability at each of `judgedAt` (phone, clean) and its evaluation time.
        var judged: [(item: Item, phone: [Float], clean: [Float], evaluation: Double)] = []
        for item in items {
            var phone: [Float] = [], clean: [Float] = [], evaluation = 0.0
            for silence in judgedAt {
                let quiet = [Float](repeating: 0, count: 16 * silence)
                let started = ContinuousClock.now
                let features = mel.features(item.phone + quiet)
                let featured = ContinuousClock.now
                phone.append(try model.infer(features))
                evaluation = started.duration(to: .now).totalMilliseconds
                featureTimes.append(started.duration(to: featured).totalMilliseconds)
                inferenceTimes.append(featured.duration(to: .now).totalMilliseconds)
                clean.append(try model.completionNow(item.clean + quiet))
            }
            judged.append((item, phone, clean, evaluation))
            if item.whole { pause.waits.append(Double(pauseRuleMilliseconds)) } else {
                pause.cutLines += 1
                if item.pause >= pauseRuleMilliseconds { pause.falseCutOffs += 1 }
            }
            FileHandle.standardError.write(Data("turns: \(item.whole ? "whole" : "cut  ") \(phone.map { String(format: "%.2f", $0) }.joined(separator: " ")) (clean \(clean.map { String(format: "%.2f", $0) }.joined(separator: " "))) \(item.text)\n".utf8))
        }
        /// A whole line waits until the first judgement that finds it complete (plus the
        /// evaluation), else the ceiling; a cut line is cut off by any such judgement made before
        /// its pause is over.
        func score(_ policy: Policy, threshold: Float, clean: Bool) -> Score {
            var s = Score()
            let points = policy == .once ? 1 : judgedAt.count
            for j in judged {
                let verdicts = Array((clean ? j.clean : j.phone).prefix(points))
                let first = verdicts.firstIndex { $0 >= threshold }
                if j.item.whole {
                    s.waits.append(first.map { Double(judgedAt[$0]) + j.evaluation } ?? ceilingMilliseconds)
                } else {
                    s.cutLines += 1
                    if let first, judgedAt[first] < j.item.pause { s.falseCutOffs += 1 }
                }
            }
            return s
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return Result(items: items.count, pause: pause,
                      model: Policy.allCases.flatMap { policy in thresholds.map { (policy, $0, score(policy, threshold: $0, clean: false)) } },
                      modelClean: score(enginePolicy, threshold: defaultThreshold, clean: true),
                      featuresMilliseconds: median(featureTimes), inferenceMilliseconds: median(inferenceTimes))
    }
}
