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

    init(_ name: String, _ questions: [String], _ script: [String], state: CallState = .completed,
         _ expected: [(TaskTracker.Status, String?)]) {
        self.name = name
        self.questions = questions
        self.script = script
        self.state = state
        self.expected = expected.map { (status: $0.0, summary: $0.1) }
    }
}

extension CalleePersona {
    static let meeting = ["Can you attend?", "Does the place need to change?"]
    static let visit = ["May I have your name?", "What number can we reach you on?", "When would suit you for a visit?"]
    static let party = ["How many people are coming?", "Do you need parking?"]
    static let slot = ["Can you attend?", "What time suits you?"]
    static let budget = ["What is your monthly budget?", "Would you like a call from an advisor?"]

    /// Cooperative callees, refusals, unclear answers, two answers at once, questions back, call-me-later,
    /// silence, hang-ups and the three ways a call is never answered.
    public static let catalogue: [CalleePersona] = [
        .init("cooperative", meeting, ["Yes, I can attend the meeting.", "No, the original location is fine."], [(.answered, "yes"), (.answered, "no")]),
        .init("cooperative with details", visit, ["My name is Jane Smith.", "It is five five five, one two three, four five six seven.", "Tomorrow at two."],
              [(.answered, "Jane Smith"), (.answered, "+15551234567"), (.answered, "{today+1}T14:00")]),
        .init("cooperative count", party, ["Three of us.", "Yes, please."], [(.answered, "3"), (.answered, "yes")]),
        .init("refuses the first", meeting, ["I would rather not answer that.", "No, it can stay."], [(.refused, nil), (.answered, "no")]),
        .init("refuses the second", meeting, ["Yes, I can come.", "I'd prefer not to say."], [(.answered, "yes"), (.refused, nil)]),
        .init("refuses all", meeting, ["No comment.", "I would rather not answer that."], [(.refused, nil), (.refused, nil)]),
        .init("refuses all three", visit, ["I'd rather not say.", "That's private.", "No comment."], [(.refused, nil), (.refused, nil), (.refused, nil)]),
        .init("unclear then clear", meeting, ["<vague> Hmm, I am not sure yet.", "Yes, I can attend.", "No."], [(.answered, "yes"), (.answered, "no")]),
        .init("unclear twice", meeting, ["<vague> Maybe.", "<vague> I don't know.", "No, it's fine."], [(.unclear, nil), (.answered, "no")]),
        .init("answers two at once", slot, ["Yes, and tomorrow at three works best for me."], [(.answered, "yes"), (.answered, "{today+1}T15:00")]),
        .init("answers the other question", slot, ["<vague> Tomorrow at ten in the morning.", "Yes, I can."], [(.answered, "yes"), (.answered, "{today+1}T10:00")]),
        .init("asks who is this", meeting, ["<vague> Who is this?", "Yes, I can attend.", "No."], [(.answered, "yes"), (.answered, "no")]),
        .init("asks who then refuses", meeting, ["<vague> Who is calling?", "I'd rather not say.", "Yes."], [(.refused, nil), (.answered, "yes")]),
        .init("asks to call back later", meeting, ["I'm driving, can you call me back later?"], [(.pending, nil), (.notAsked, nil)]),
        .init("call back after one answer", meeting, ["Yes, I can attend.", "Sorry, I'm in a meeting, call me later."], [(.answered, "yes"), (.pending, nil)]),
        .init("silent", meeting, ["<silence>", "<silence>"], [(.pending, nil), (.notAsked, nil)]),
        .init("unclear then silent", meeting, ["<vague> Um.", "<silence>"], [(.unclear, nil), (.notAsked, nil)]),
        .init("hangs up mid-question", meeting, ["Yes, I can attend.", "<hangup>"], [(.answered, "yes"), (.pending, nil)]),
        .init("hangs up at once", meeting, ["<hangup>"], [(.pending, nil), (.notAsked, nil)]),
        .init("hangs up on the last question", visit, ["I am Tom.", "Two zero two, five five five, zero one nine eight.", "<hangup>"],
              [(.answered, "Tom"), (.answered, "+12025550198"), (.pending, nil)]),
        .init("busy", meeting, ["<busy>"], state: .busy, [(.notAsked, nil), (.notAsked, nil)]),
        .init("rejects", meeting, ["<reject>"], state: .rejected, [(.notAsked, nil), (.notAsked, nil)]),
        .init("no answer", meeting, ["<no_answer>"], state: .noAnswer, [(.notAsked, nil), (.notAsked, nil)]),
        .init("says yes to the name question", visit, ["<vague> Yes, I can attend.", "My name is John Park.", "Five five five, nine eight seven, six five four three.",
                                                         "Next Monday."],
              [(.answered, "John Park"), (.answered, "+15559876543"), (.answered, "{next monday}")]),
        .init("international number", visit, ["It's Maria.", "Plus four four, two zero seven, nine four six, zero nine five eight.",
                                               "Friday at half past ten in the morning."],
              [(.answered, "Maria"), (.answered, "+442079460958"), (.answered, "{next friday}T10:30")]),
        .init("a date in a month", visit, ["This is Anna Berg.", "Five five five, two three four, nine eight seven six.", "March fifth at 3 pm."],
              [(.answered, "Anna Berg"), (.answered, "+15552349876"), (.answered, "{03-05}T15:00")]),
        .init("a bigger count", party, ["Twenty five people.", "No, we will take the train."], [(.answered, "25"), (.answered, "no")]),
        .init("a budget", budget, ["About two hundred and fifty dollars.", "Sure, why not."], [(.answered, "250 USD"), (.answered, "yes")]),
        .init("soft negatives", meeting, ["Not really, sorry.", "I don't think so."], [(.answered, "no"), (.answered, "no")]),
        .init("casual variants", meeting, ["Sure, why not.", "Nope."], [(.answered, "yes"), (.answered, "no")]),
        .init("of course and of course not", meeting, ["Of course.", "Of course not."], [(.answered, "yes"), (.answered, "no")]),
        .init("just a number", party, ["Just two.", "No thanks."], [(.answered, "2"), (.answered, "no")]),
        .init("pauses mid-answer", visit, ["My name is <pause 600> Lisa Chen.", "It's five five five, <pause 600> two one two, four four four four.",
                                           "Um, <pause 600> the day after tomorrow at eleven."],
              [(.answered, "Lisa Chen"), (.answered, "+15552124444"), (.answered, "{today+2}T11:00")]),
        .init("backchannels over the agent", meeting, ["<over Mm-hmm.> Yes, I can attend.", "<over Okay.> No, the place is fine."],
              [(.answered, "yes"), (.answered, "no")]),
        .init("unclear count then clear", party, ["<vague> Hard to say.", "Probably four.", "Yes."], [(.answered, "4"), (.answered, "yes")]),
    ]
}
