import Foundation

/// Reading back what is easily misheard (`ConversationContext.readBack`): the answer is stored as
/// heard, read back, and corrected when the caller says it was wrong — the way a careful person
/// takes a number down on the phone. Each question is read back at most twice; a "no" or a
/// correction after the second read-back leaves it `unclear` (the correction kept as its text): two
/// read-backs turned down say the line is not being heard right, and a third hearing nobody
/// confirmed is a guess an operator would act on.
extension ScriptedDialogue {
    /// A read-back waiting for the caller's "yes" or correction.
    struct PendingReadBack: Sendable, Equatable {
        var index: Int
        var summary: String
        /// Read-backs of this question so far (this one included).
        var count: Int
        /// Whether the caller's reply to this read-back was already unclear once.
        var askedAgain = false
    }

    static let maxReadBacks = 2

    /// After an answer to the asked question: read it back when its kind is one that is.
    mutating func readBackOrNext(_ index: Int, count: Int = 1, prefix: String) -> Step {
        let kind = interpreter.kinds.indices.contains(index) ? interpreter.kinds[index] : .freeText
        guard count <= Self.maxReadBacks, let summary = tracker.answers[index].answerSummary, readsBack(summary, as: kind) else {
            return next(prefix: prefix)
        }
        readBack = PendingReadBack(index: index, summary: summary, count: count)
        return .ask(text: phrases.readBack(spokenReadBack(summary, as: kind)), questionIndex: index)
    }

    /// Whether an answer is read back: its kind is configured to be, or — in English, whenever
    /// read-backs are on — it is a number a listener may mishear ("fifteen" for "fifty": the
    /// mishearing a careful person on the phone checks, and one only the caller can catch).
    func readsBack(_ summary: String, as kind: AnswerKind) -> Bool {
        context.readBack.contains(kind) || kind == .number && !context.readBack.isEmpty && !interpreter.korean && ReadBack.mayBeMisheard(summary)
    }

    /// The caller's reply to a read-back: a yes (or the same value again) settles it; another
    /// value is a correction, read back in turn; a plain no asks the question again.
    mutating func confirm(_ reply: String, _ pending: PendingReadBack) -> Step {
        readBack = nil
        let index = pending.index, id = tracker.answers[index].questionID
        let kind = interpreter.kinds[index]
        let polarity = interpreter.polarity(of: reply)
        // A name is looked for only after a "no" ("No, it's Jane"): "Yes, right" is not a name.
        let value = kind == .name && polarity != false ? nil : interpreter.answer(kind, in: reply, strict: kind == .name)
        if case .refused = interpreter.interpret(reply, asked: index, open: []) {   // "No, I'd rather not say."
            tracker.update(questionID: id, status: .refused, answerText: reply, summary: nil, confidence: 0.8)
            return next(prefix: phrases.thatsAllRight)
        }
        if let value, value != pending.summary {
            guard pending.count < Self.maxReadBacks else {
                tracker.reject(questionID: id, answerText: reply)
                return next(prefix: phrases.letsGoOn)
            }
            tracker.update(questionID: id, status: .answered, answerText: reply, summary: value, confidence: 0.9)
            return readBackOrNext(index, count: pending.count + 1, prefix: phrases.thankYou)
        }
        // The value said again, or a yes. Not after a "no": "No, it's John Park" heard as the very
        // value read back is the recognizer hearing the same wrong twice as often as the caller
        // mishearing a clear read-back (the held-out sets stored "Anna Byrd" and "Bridget Morin"
        // so) — the caller said it was wrong, so it is asked again like a plain no.
        if polarity != false, value == pending.summary || polarity == true {
            tracker.update(questionID: id, status: .answered, answerText: nil, summary: nil, confidence: 1)
            return next(prefix: phrases.thankYou)
        }
        if polarity == false {
            tracker.reject(questionID: id, answerText: nil)
            guard pending.count < Self.maxReadBacks else { return next(prefix: phrases.letsGoOn) }
            readBacksDone[index] = pending.count
            return .ask(text: phrases.readBackWrong + " " + question(index), questionIndex: index)
        }
        switch interpreter.interpret(reply, asked: index, open: []) {
        case .callBackLater, .whoIsCalling, .wantsPerson:
            return caller(said: reply)
        default:
            // Neither yes nor no: the read-back once more, then the answer stands as heard.
            guard !pending.askedAgain else { return next(prefix: phrases.thankYou) }
            var again = pending
            again.askedAgain = true
            readBack = again
            return .ask(text: phrases.sorry + " " + phrases.readBack(spokenReadBack(pending.summary, as: kind)), questionIndex: index)
        }
    }

    /// `summary` as the caller hears it read back, in the call's language.
    func spokenReadBack(_ summary: String, as kind: AnswerKind) -> String {
        interpreter.korean ? KoreanSpeech.readBack(summary, as: kind, now: interpreter.dates.now, calendar: interpreter.dates.calendar)
            : ReadBack.spoken(summary, as: kind, now: interpreter.dates.now, calendar: interpreter.dates.calendar)
    }
}
