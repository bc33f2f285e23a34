import Dialogue
import Foundation
import Realtime

/// A simulated callee with a known right result: what it is asked, what it says (the
/// `SimulatedCallee` script, `<busy>`, `<silence>`, `<hangup>` …) and what the stored call must
/// then say — its state and every question's status and normalised answer. `make test` runs
/// the catalogue through the dialogue, `make bench` through real calls (espeak-ng → SIP/RTP →
/// Moonshine) and prints the share that matches.
public struct CalleePersona: Sendable {
    public var name: String
    public var questions: [String]
    public var script: [String]
    public var state: CallState
    /// One per question: the status, and the `answer_summary` it must carry (nil: not checked).
    /// Summaries may name days relative to the call: `{today+1}`, `{next friday}`, `{03-05}`.
    public var expected: [(status: TaskTracker.Status, summary: String?)]

    /// How a call's result compares with what this persona must produce.
    public struct Comparison: Sendable {
        public var persona: String
        public var stateMatches = true
        public var statuses = (matched: 0, total: 0)
        public var summaries = (matched: 0, total: 0)
        /// Questions the call stored as `answered`, and of them the wrong ones: a status that
        /// should have been another, or an answer that is not the one said. What an operator
        /// would act on wrongly.
        public var answered = (wrong: 0, total: 0)
        /// Each question stored as `answered`: the confidence stored with it, and whether it is right.
        public var answeredConfidences: [(confidence: Double, right: Bool)] = []
        public var differences: [Difference] = []

        /// What differed, in words ("q2 unclear (expected answered), heard …").
        public var mismatches: [String] { differences.map(\.description) }
    }

    /// One thing the call ended with that the persona did not expect.
    public struct Difference: Sendable, Equatable, CustomStringConvertible {
        public enum Aspect: Sendable, Equatable { case state, status, answer }
        public var aspect: Aspect
        /// The question's index (nil for the state).
        public var question: Int?
        public var expected: String
        public var got: String
        /// What the caller was heard to say, for a question.
        public var heard: String?

        public var description: String {
            switch aspect {
            case .state: "state \(got), expected \(expected)"
            case .status: "q\((question ?? 0) + 1) \(got) (expected \(expected)), heard \"\(heard ?? "")\""
            case .answer: "q\((question ?? 0) + 1) answer \(got) (expected \(expected)), heard \"\(heard ?? "")\""
            }
        }
    }

    /// Compares a call's end state (nil: not checked) and answers with the expectation; a call
    /// that never connected has no stored answers and counts as every question `not_asked`.
    public func compare(state: CallState?, answers: [TaskTracker.Answer], now: Date) -> Comparison {
        var result = Comparison(persona: name)
        if let state, state != self.state {
            result.stateMatches = false
            result.differences.append(.init(aspect: .state, expected: self.state.rawValue, got: state.rawValue))
        }
        let summaries = expectedSummaries(now: now)
        for (i, expected) in self.expected.enumerated() {
            let answer = answers.indices.contains(i) ? answers[i] : nil
            let status = answer?.status ?? (answers.isEmpty ? .notAsked : nil)
            result.statuses.total += 1
            if status == expected.status { result.statuses.matched += 1 } else {
                result.differences.append(.init(aspect: .status, question: i, expected: expected.status.rawValue, got: status?.rawValue ?? "missing", heard: answer?.answerText))
            }
            if status == .answered {
                result.answered.total += 1
                let wrong = expected.status != .answered || summaries[i].map({ $0 != answer?.answerSummary }) == true
                if wrong { result.answered.wrong += 1 }
                result.answeredConfidences.append((answer?.confidence ?? 0, !wrong))
            }
            guard let summary = summaries[i] else { continue }
            result.summaries.total += 1
            if answer?.answerSummary == summary { result.summaries.matched += 1 } else {
                result.differences.append(.init(aspect: .answer, question: i, expected: summary, got: answer?.answerSummary ?? "none", heard: answer?.answerText))
            }
        }
        return result
    }

    /// The expected summaries with their relative days resolved against `now`.
    public func expectedSummaries(now: Date, calendar: Calendar = .current) -> [String?] {
        expected.map { $0.summary.map { Self.resolve($0, now: now, calendar: calendar) } }
    }

    /// `text` with its relative day (`{today+1}`, `{next friday}`, `{12-25}`) as a date.
    public static func resolve(_ text: String, now: Date, calendar: Calendar) -> String {
        guard let open = text.firstIndex(of: "{"), let close = text.firstIndex(of: "}") else { return text }
        let token = text[text.index(after: open)..<close]
        let today = calendar.startOfDay(for: now)
        var date = today
        if token.hasPrefix("today+"), let days = Int(token.dropFirst(6)) {
            date = calendar.date(byAdding: .day, value: days, to: today)!
        } else if token.hasPrefix("next "), let weekday = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
                    .firstIndex(of: String(token.dropFirst(5))) {
            var ahead = (weekday + 1 - calendar.component(.weekday, from: today) + 7) % 7
            if ahead == 0 { ahead = 7 }
            date = calendar.date(byAdding: .day, value: ahead, to: today)!
        } else if token.count == 5, let month = Int(token.prefix(2)), let day = Int(token.suffix(2)) {
            var components = calendar.dateComponents([.year], from: today)
            components.month = month; components.day = day
            date = calendar.date(from: components)!
            if date < today { date = calendar.date(byAdding: .year, value: 1, to: date)! }
        }
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return text.replacingCharacters(in: open...close, with: String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!))
    }

    public init(name: String, questions: [String], script: [String], state: CallState, expected: [(status: TaskTracker.Status, summary: String?)]) {
        self.name = name
        self.questions = questions
        self.script = script
        self.state = state
        self.expected = expected
    }

    public init(_ name: String, _ questions: [String], _ script: [String], state: CallState = .completed,
         _ expected: [(TaskTracker.Status, String?)]) {
        self.name = name
        self.questions = questions
        self.script = script
        self.state = state
        self.expected = expected.map { (status: $0.0, summary: $0.1) }
    }
}
