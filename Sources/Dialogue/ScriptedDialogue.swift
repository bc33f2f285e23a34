import Flows
import Foundation

/// The local engine's conversation: greeting, one question at a time, an unclear answer asked
/// once more, a refusal recorded and the next question asked, thanks and goodbye — the
/// goal-oriented rules of seed 000 without a language model. `ReplyInterpreter` says what each
/// reply means; this type decides what to say next.
public struct ScriptedDialogue: Sendable {
    public enum Step: Sendable, Equatable {
        /// Say this and wait for the caller.
        case ask(text: String, questionIndex: Int)
        /// Say this, then end the call.
        case close(text: String)
        /// Say this, then hand the caller to a person (`ConversationContext.transferTarget`).
        case transfer(text: String, reason: String)
        /// Say this (perhaps nothing), then wait for the callee without putting a question: a call
        /// screener's question answered, the agent waits for the person.
        case listen(text: String)
        /// Press these keys (a phone menu's option), then wait for the callee without a word.
        case press(keys: String)
        /// Say this (perhaps nothing), then run the flow's tool step (`pendingTool`) and hand its
        /// outcome to `toolFinished`.
        case runTool(text: String)
    }

    public internal(set) var tracker: TaskTracker
    /// The call, in the language being spoken (`speaking(_:)`).
    public internal(set) var context: ConversationContext
    /// The call as the operator wrote it, in its own language.
    let written: ConversationContext
    var interpreter: ReplyInterpreter
    /// What the dialogue says besides the questions, in the language being spoken.
    var phrases: DialoguePhrases
    var current: Int?
    /// The flow step the dialogue is at (a flow's `ask` or `transfer`).
    var flowStep: String?
    var turns = 0
    /// An answer read back, waiting for the caller's yes or correction.
    var readBack: PendingReadBack?
    /// Read-backs of a question that the caller said were wrong, by question index.
    var readBacksDone: [Int: Int] = [:]
    /// The opening as said (the greeting and first question): said again to the person a call
    /// screener put through.
    var opening: Step?
    var screenerIntroductions = 0
    var screenerSilences = 0
    /// Behind a screener or a phone menu (never both at once), the last words were neither theirs
    /// nor a greeting (`personGreets`, `personWaited`).
    var unplacedWordsAwaitingPerson = false
    /// The options of the phone menu being said, none pressed yet.
    var menuOptions: [PhoneMenu.Option] = []
    var menuSilences = 0
    /// How close in meaning menu options' words are to `menuGoal` (`noteMenuMeaning`).
    var menuMeaning: [String: Double] = [:]
    /// No questions to ask, and collections to answer from: the agent asks how it can help and
    /// answers until the caller is done (an inbound FAQ line).
    var answersQuestionsOnly: Bool { context.questions.isEmpty && !context.knowledge.isEmpty }

    public init(context: ConversationContext, now: Date = Date()) {
        self.context = context
        written = context
        tracker = TaskTracker(context: context)
        phrases = DialoguePhrases.of(context.language)
        if let flow = context.flow {
            let asks = flow.asks
            let choices = Dictionary(uniqueKeysWithValues: asks.enumerated().compactMap { i, step in step.choices.map { (i, $0) } })
            interpreter = ReplyInterpreter(kinds: asks.map { AnswerKind($0.kind ?? .freeText) }, choices: choices, language: context.language, now: now)
        } else {
            interpreter = ReplyInterpreter(questions: context.questions, language: context.language, now: now)
        }
    }

    /// The opening: greeting and the first question.
    public mutating func start() -> Step {
        let asked = tracker.answers.map(\.timesAsked)
        let step = answersQuestionsOnly ? .ask(text: context.greeting + " " + phrases.howCanIHelp, questionIndex: -1) : next(prefix: context.greeting)
        opening = step
        guard context.followsMenuPath else { return step }
        // The session presses the known keys; the opening waits for the person (not yet asked).
        tracker.unask(beyond: asked)
        tracker.menu = MenuPassage(pressed: context.menuPath.map { .init(key: $0.keys, option: "") })
        return .listen(text: "")
    }

    /// The caller answered the current question. `confidence`: the recognizer's in the words
    /// (`Transcript.confidence`; 1 for keys pressed) — an answer whose score is below its kind's
    /// floor (`ConversationContext.answerConfidence`) is not stored as answered.
    public mutating func caller(said reply: String, confidence heard: Double = 1) -> Step {
        turns += 1
        if let step = menuStep(reply) ?? screenerStep(reply) { return step }
        guard let index = current else { return close(context.closing) }
        let asking = question(index)
        if turns >= context.maxTurns { return close(context.closing) }
        if let pending = readBack { return confirm(reply, pending) }
        let open = Set(tracker.answers.indices.filter { tracker.answers[$0].status == .pending || tracker.answers[$0].status == .unclear })
        switch interpreter.interpret(reply, asked: index, open: open) {
        case .nothing:
            return reask(index, prefix: phrases.notCaught)
        case .whoIsCalling:
            let introduction = context.call.direction == "inbound" ? phrases.inboundIntroduction : phrases.introduction
            return .ask(text: context.filled(introduction) + " " + asking, questionIndex: index)
        case .wantsPerson:
            guard context.transferTarget != nil else {
                return reask(index, prefix: phrases.cannotTransfer)
            }
            return .transfer(text: phrases.transferring, reason: "the caller asked for a person")
        case .callBackLater:
            tracker.callbackRequested = true
            return close(phrases.callBackLater + " " + context.closing)
        case .refused:
            tracker.update(questionID: tracker.answers[index].questionID, status: .refused, answerText: reply, summary: nil, confidence: 0.8)
            return next(prefix: phrases.thatsAllRight)
        case .unclear:
            tracker.update(questionID: tracker.answers[index].questionID, status: .unclear, answerText: reply, summary: nil, confidence: 0.3)
            return reask(index, prefix: phrases.notUnderstood)
        case .answers(let read):
            // One score: how sure the reading is (a hedge halves it) times how sure the recognizer was.
            let found = read.filter { $0.value.confidence * heard >= context.answerConfidence.floor }
            guard !found.isEmpty else {
                // Read as an answer, but too unsure to act on: kept as what was heard, and asked again.
                tracker.update(questionID: tracker.answers[index].questionID, status: .unclear, answerText: reply, summary: nil,
                               confidence: (read[index]?.confidence ?? 1) * heard)
                return reask(index, prefix: phrases.notUnderstood)
            }
            for (answered, extracted) in found {
                tracker.update(questionID: tracker.answers[answered].questionID, status: .answered, answerText: reply,
                               summary: extracted.summary, confidence: extracted.confidence * heard)
            }
            // An answer to another question than the one asked: noted, and the question asked again.
            if found[index] == nil { return reask(index, prefix: phrases.thankYouNoted) }
            return readBackOrNext(index, count: (readBacksDone[index] ?? 0) + 1, prefix: phrases.thankYou)
        }
    }

    /// The caller's last words, heard after they hung up: taken as any reply is (the same floors),
    /// but the step after them is not said, so what it would ask is not counted as asked — a
    /// question nobody heard is stored `not_asked`, not `pending`.
    public mutating func callerHungUp(having said: String, confidence heard: Double = 1) {
        let asked = tracker.answers.map(\.timesAsked)
        _ = caller(said: said, confidence: heard)
        tracker.unask(beyond: asked)
    }

    /// Whether `reply` already settles the question being asked — an answer, a refusal, a
    /// question back — and does not trail off ("Yes, and …"), so the caller's turn can end now.
    public func completesAnAnswer(_ reply: String) -> Bool {
        guard let index = current, !Self.trailsOff(reply) else { return false }
        if readBack != nil, interpreter.polarity(of: reply) != nil { return true }
        switch interpreter.interpret(reply, asked: index, open: [index]) {
        case .nothing, .unclear: return false
        case .answers, .refused, .whoIsCalling, .callBackLater, .wantsPerson: return true
        }
    }

    /// The words the caller's reply is expected to hold, in the call's language: the kind's words
    /// of the question waiting for an answer, and yes/no while a read-back of such a kind waits for
    /// its check. Not for a name's read-back: its check is as often "No, Jane Smith" as "yes", and
    /// with yes and no favoured Moonshine wrote that name as "yes yes" (measured on the personas).
    /// A flow's choice question expects its choices' words ("fish", "pasta": Moonshine wrote
    /// Piper's "Fish, please." as "Sesh, please." and "Fesh, please." one run in three unbiased).
    public var expectedWords: [String] {
        guard let index = current, interpreter.kinds.indices.contains(index) else { return [] }
        let kind = interpreter.kinds[index]
        if kind == .choice {
            return (interpreter.choices[index] ?? []).flatMap { $0.lowercased().split(separator: " ").map(String.init) }
        }
        // Korean: none. Whisper prompted with the kind's words says them back on an unclear line
        // ("여덟" for "세 명이요", "네" for "아뇨"): in make bench's korean suite 2–4 of 23 lines
        // were read as another answer with the prompt, none without, for one more line right.
        if interpreter.korean { return [] }
        guard readBack != nil, !kind.expectedWords.isEmpty else { return kind.expectedWords }
        return AnswerKind.readBackReplies + kind.expectedWords
    }

    /// Whether `reply` stops on a word a sentence goes on after ("My name is …", "Yes, and …"): the
    /// caller paused mid-sentence, whatever the pause or the end-of-turn model says.
    public static func trailsOff(_ reply: String) -> Bool {
        ReplyInterpreter.words(reply).last.map(continuations.contains) ?? false
    }

    /// Whether `reply` stops short of an answer: it trails off, or a number to dial has begun with
    /// fewer digits than one has ("It's five five five, …" — people pause between the groups; an
    /// international one, "plus …", has its country code first, so fewer than ten: the model ended
    /// "Plus four four two zero seven nine four six, … zero nine five eight" at its comma).
    public func stopsShort(_ reply: String) -> Bool {
        if Self.trailsOff(reply) { return true }
        guard let index = current, interpreter.kinds.indices.contains(index), interpreter.kinds[index] == .phoneNumber else { return false }
        let run = interpreter.korean ? (digits: KoreanNumber.digitRun(in: reply), plus: false) : SpokenNumber.digitRun(in: ReplyInterpreter.words(reply))
        return (1..<(run.plus ? 10 : 7)).contains(run.digits.count)
    }

    static let continuations: Set<String> = ["and", "but", "or", "so", "because", "um", "uh", "er", "the", "a", "my", "is", "at", "to", "if", "then", "well"]

    /// A transfer did not reach anyone: say so and put the current question again.
    public mutating func transferEnded(_ outcome: TransferOutcome) -> Step {
        readBack = nil
        if let step = flowStep, context.flow?[step]?.transfer != nil { return walk(prefix: outcome.apology, to: tracker.flow?.next(after: step)) }
        guard let index = current else { return close(context.closing) }
        return .ask(text: outcome.apology + " " + phrases.letsContinue + " " + question(index), questionIndex: index)
    }

    /// The caller said nothing for a long while after the question: ask once more, then give up
    /// politely — the question stays `pending` (asked, never answered).
    public mutating func noReply() -> Step {
        if let step = menuSilence() ?? screenerSilence() { return step }
        readBack = nil   // the answer stands as heard
        guard let index = current else { return .close(text: context.closing) }
        if tracker.answers[index].timesAsked < 2 {
            tracker.asked(index)
            return .ask(text: phrases.stillThere + " " + question(index), questionIndex: index)
        }
        return close(phrases.notAGoodTime + " " + context.closing)
    }

    /// The same question once more; after its second asking the dialogue moves on.
    private mutating func reask(_ index: Int, prefix: String) -> Step {
        guard tracker.answers[index].timesAsked < 2 else { return next(prefix: "") }
        tracker.asked(index)
        return .ask(text: prefix + " " + question(index), questionIndex: index)
    }

    mutating func close(_ text: String) -> Step {
        current = nil
        return .close(text: text)
    }

    mutating func next(prefix: String) -> Step {
        if tracker.flow != nil { return nextInFlow(prefix: prefix) }
        guard let index = tracker.nextQuestionIndex(after: current) else {
            return close([Self.prefix(prefix, before: context.closing), context.closing].filter { !$0.isEmpty }.joined(separator: " "))
        }
        current = index
        tracker.asked(index)
        return .ask(text: [prefix, question(index)].filter { !$0.isEmpty }.joined(separator: " "), questionIndex: index)
    }

    /// The words said before a closing: none when the closing thanks already — "Thank you." before
    /// "Thank you for your time." (or "감사합니다." before "… 감사합니다.") is said once.
    static func prefix(_ prefix: String, before closing: String) -> String {
        let words = prefix.trimmingCharacters(in: .punctuationCharacters.union(.whitespaces))
        return !words.isEmpty && closing.contains(words) ? "" : prefix
    }
}
