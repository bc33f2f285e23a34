import Knowledge

/// The local engine answering callers' questions from the operator's FAQ: no language model, so
/// it reads out the FAQ's answer when the match is good enough, and otherwise says it will pass
/// the question on (kept as an open question in the result; a person takes it when
/// `transferTarget` is set) — never a guess.
extension ScriptedDialogue {
    /// Whether `reply` is a question to look up before the dialogue answers: with collections to
    /// search, a question that is not an answer, a request for a person or a callback — or, on a
    /// FAQ line, anything but the caller saying they are done.
    public func wantsLookup(_ reply: String) -> Bool {
        guard !context.knowledge.isEmpty, !screenerMayHear(reply) else { return false }
        guard let index = current else { return answersQuestionsOnly && !Self.isDone(reply) }
        guard KnowledgeAnswerPolicy.isQuestion(reply) else { return false }
        switch interpreter.interpret(reply, asked: index, open: [index]) {
        case .answers, .whoIsCalling, .wantsPerson, .callBackLater, .refused: return false
        case .nothing, .unclear: return true
        }
    }

    /// The caller asked `question`; `answer` is the FAQ row that answers it, if one cleared the policy.
    public mutating func caller(asked question: String, answer: KnowledgeHit?) -> Step {
        turns += 1
        if turns >= context.maxTurns { return close(context.closing) }
        let resume = current.map { phrases.now + " " + self.question($0) } ?? phrases.anythingElse
        if let answer {
            return .ask(text: answer.chunk.text + " " + resume, questionIndex: current ?? -1)
        }
        tracker.openQuestions.append(question)
        if context.transferTarget != nil {
            return .transfer(text: phrases.noInformationTransferring, reason: "a question the knowledge base could not answer")
        }
        return .ask(text: phrases.noInformation + " " + resume, questionIndex: current ?? -1)
    }

    /// "No, that's all, thanks", "bye", "아니요, 없어요": the caller has nothing more to ask.
    static func isDone(_ reply: String) -> Bool {
        let words = ReplyInterpreter.words(reply)
        if words.isEmpty { return false }
        let said = " " + words.joined(separator: " ") + " "
        if [" that's all ", " thats all ", " that is all ", " nothing else ", " no more ", " bye ", " goodbye ", " no thank ", " no thanks ",
            " 없어요 ", " 없습니다 ", " 됐어요 ", " 괜찮아요 ", " 아니요 ", " 아니오 "].contains(where: said.contains) { return true }
        return words.count <= 3 && ["no", "nope", "thanks", "thank", "감사합니다"].contains(words[0]) && !KnowledgeAnswerPolicy.isQuestion(reply)
    }
}
