/// A caller who will not answer, or not now: a refusal ("I'd rather not say"), a decline of the call
/// itself ("Please don't phone me"), keeping a thing to oneself — and a request to be called at
/// another time ("I'm driving", "Could you ring tomorrow?"), which no refusal is.
extension ReplyInterpreter {
    /// Saying it is not a good moment; asking for a call by its verbs is `callVerbs`' ("call me back").
    static let callBack = ["not a good time", "bad time", "busy right now", "i'm busy", "i am busy", "i'm driving", "i am driving",
                           "in a meeting", "another time", "another day", "i'm at work", "i am at work"]
    static let refusals = ["rather not", "prefer not", "don't want to", "do not want to", "won't answer", "will not answer",
                           "not going to answer", "no comment", "none of your business", "not tell", "decline to", "not comfortable",
                           "that's private", "that is private", "not willing to", "between me and", "my own business", "that's personal",
                           "that is personal",
                           "rather you didn't", "rather you did not", "prefer you didn't", "prefer you did not"]
    /// A refusal to a question that is not a yes/no one (to which they are a no).
    static let declines = ["please don't", "please do not", "don't call", "do not call", "don't phone", "do not phone",
                           "don't ring", "do not ring",
                           // "You won't need a number": the caller says the thing asked for is not needed.
                           "you won't need", "you will not need", "you don't need", "you do not need"]

    /// The verbs a call is asked for by, and the words after one that put it at another time:
    /// "ring tomorrow", "phone me back", "try me later", "call us in an hour", "ring me on Friday", "try again".
    static let callVerbs: Set<String> = ["call", "ring", "phone", "try"]
    static let laterWords: Set<String> = Set(SpokenDate.weekdays.keys).union(["back", "later", "tomorrow", "tonight", "hour"])
    /// After "try again", the words that make it a call at another time, not a question to be asked again.
    static let laterTimes: Set<String> = ["later", "tomorrow", "tonight", "next", "morning", "afternoon", "evening", "weekend", "week"]
    /// Before a verb, words that make it a noun ("a quick call tomorrow" is a time for the call).
    static let nounMarkers: Set<String> = ["a", "the", "your", "my", "our", "this", "that", "quick", "short", "phone"]
    static let negations: Set<String> = ["don't", "dont", "not", "never", "won't", "can't", "cannot"]

    /// Whether the caller asks to be called at another time — and not never to be called again:
    /// "Don't call me back" declines (`refuses`).
    static func asksForACallLater(_ words: [String]) -> Bool {
        if declinesACall(words) { return false }
        if says(callBack, in: words) { return true }
        return words.indices.contains { i in
            guard callVerbs.contains(words[i]), i == 0 || !nounMarkers.contains(words[i - 1]) else { return false }
            if words[i] == "try", words.indices.contains(i + 1), words[i + 1] == "to" { return false }   // "I'll try to come back"
            let after = words[(i + 1)...].prefix(4)
            if after.contains(where: laterWords.contains) { return true }
            // "Call again" asks for another call; "try again" may only ask for the question again, unless a time follows.
            guard let again = after.firstIndex(of: "again") else { return false }
            return words[i] != "try" || words[(again + 1)...].prefix(3).contains(where: laterTimes.contains)
        }
    }

    /// Whether the caller refuses the question `kind` asks: a refusal; and — to a question that is
    /// not a yes/no one, where they are a no ("Please don't phone me" to "When should we call?") —
    /// a decline, keeping the thing private, or not sharing it.
    static func refuses(_ words: [String], to kind: AnswerKind) -> Bool {
        says(refusals, in: words) || kind != .yesNo && (says(declines, in: words) || declinesACall(words) || keepsToThemselves(words) || withholds(words))
    }

    /// A call verb with a negation right before it: "don't call", "do not ring", "never ever phone".
    static func declinesACall(_ words: [String]) -> Bool {
        words.indices.contains { callVerbs.contains(words[$0]) && negated(words, at: $0) }
    }

    /// "I'll keep my address private", "I'd like to keep that to myself": keeping a thing private,
    /// within a few words of the keeping, "private" ending the clause ("we keep a private room"
    /// says something else).
    static func keepsToThemselves(_ words: [String]) -> Bool {
        words.indices.contains { i in
            guard ["keep", "keeping"].contains(words[i]) else { return false }
            return (i + 2..<min(i + 6, words.count)).contains { j in
                let endsClause = j + 1 == words.count || clauseOpeners.contains(words[j + 1])
                return words[j] == "private" && endsClause || ["myself", "ourselves"].contains(words[j]) && words[j - 1] == "to"
            }
        }
    }
    static let clauseOpeners: Set<String> = ["thanks", "thank", "please", "sorry", "and", "but", "if", "for", "actually", "i", "i'm", "i'd"]

    /// Not sharing or disclosing a thing, or not giving or handing it out: "I won't share that", "I
    /// don't give out my number", "we don't give our address to callers" — a negation within the
    /// three words before the verb.
    static func withholds(_ words: [String]) -> Bool {
        words.indices.contains { i in
            let verb = ["share", "sharing", "disclose"].contains(words[i])
                || ["give", "hand"].contains(words[i]) && words[(i + 1)...].prefix(4).contains("out")
                || words[i] == "give" && i + 1 < words.count && ["my", "our"].contains(words[i + 1])
            return verb && words[max(0, i - 3)..<i].contains(where: negations.contains)
        }
    }

    /// Whether a negation comes right before `index` ("ever" between allowed).
    private static func negated(_ words: [String], at index: Int) -> Bool {
        var before = index - 1
        if before > 0, words[before] == "ever" { before -= 1 }
        return before >= 0 && negations.contains(words[before])
    }
}
