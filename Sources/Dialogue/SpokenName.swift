/// A person's name in a reply: "My name is Jane Smith", "It's Jane", "Jane Smith speaking", "Under
/// Jane Smith", or
/// the reply alone when it is just one to three words that could be a name. "Yes, I can attend"
/// is not a name.
enum SpokenName {
    static let introductions: [[String]] = [["my", "name", "is"], ["my", "name's"], ["name", "is"], ["name's"], ["this", "is"],
                                           ["i", "am"], ["i'm"], ["it's"], ["it", "is"], ["call", "me"], ["you", "can", "call", "me"],
                                           ["it'll", "be"], ["it", "will", "be"], ["that'll", "be"], ["that", "will", "be"],
                                           // What a booking or an account is held under: "Under Rivera", "It's under the name of Rivera".
                                           ["under", "the", "name", "of"], ["under", "the", "name"], ["under"],
                                           // Whom a cheque, an invoice or a ticket is for: "Make it out to Rivera", "made out to …".
                                           ["make", "it", "out", "to"], ["made", "out", "to"], ["make", "them", "out", "to"]]
    /// Words that end a name or cannot be one.
    static let stops: Set<String> = Set<String>([
        "and", "but", "i", "i'm", "from", "calling", "here", "speaking", "the", "a", "an", "yes", "yeah", "no", "not", "sure", "okay",
        "ok", "fine", "well", "please", "thank", "thanks", "you", "is", "it", "it's", "my", "me", "busy", "sorry", "can", "will",
        "hello", "hi", "good", "morning", "afternoon", "evening", "of", "course", "right", "correct", "that", "this", "so",
        "just", "really", "very", "glad", "happy", "going", "coming", "also", "too", "at", "in", "on", "by", "for", "to", "with", "under",
        // Whose it is ("Mine, …", "His.") says no name itself.
        "mine", "ours", "his", "hers", "theirs", "yours",
        // A question back ("What?", "Pardon?", "Why me?") is nobody's name.
        "what", "who", "why", "where", "how", "which", "pardon", "huh", "excuse",
    ])
    // A day ("It'll be Friday", "It's tomorrow") is nobody's name either.
    .union(SpokenDate.dayWords)

    /// Words inside a name that are written lower-case ("van der Berg", "da Silva").
    static let particles: Set<String> = ["van", "von", "der", "den", "de", "da", "di", "du", "del", "la", "le", "bin", "al", "el"]

    /// Words that, right after a name, say what that person does or is ("… will sign").
    static let predicates: Set<String> = ["will", "would", "can", "could", "should", "shall", "may", "is", "does"]

    static func name(in words: [String], original: String, strict: Bool) -> String? {
        let originals = ReplyInterpreter.tokens(original)
        guard originals.count == words.count else { return nil }
        for intro in introductions {
            for start in words.indices where start + intro.count <= words.count && Array(words[start..<(start + intro.count)]) == intro {
                if let name = nameWords(from: start + intro.count, words, originals) { return name }
            }
        }
        if let speaking = words.firstIndex(of: "speaking"), speaking > 0, speaking <= 3,
           let name = nameWords(from: 0, Array(words[..<speaking]), Array(originals[..<speaking])) {
            return name
        }
        // "Maria will sign", "Ana Kovac can collect it": the name, then what the person does.
        if !strict, let name = nameWords(from: 0, words, originals) {
            let next = name.split(separator: " ").count
            if next < words.count, next <= 3, predicates.contains(words[next]) { return name }
        }
        guard !strict, (1...3).contains(words.count) else { return nil }
        return nameWords(from: 0, words, originals).flatMap { $0.split(separator: " ").count == words.count ? $0 : nil }
    }

    /// Up to three name-like words from `start`, title-cased — no number word ("It's two") among
    /// them. A recognizer writes a name
    /// capitalised and other words lower-case, so the name ends where the writing changes ("Tessa
    /// Grey, honestly." is Tessa Grey; "Maybe tomorrow." no name of two words); a particle may
    /// stay lower-case, and a recognizer that writes all lower-case is read as before.
    private static func nameWords(from start: Int, _ words: [String], _ originals: [String]) -> String? {
        var picked: [String] = []
        var i = start
        let capitalised = { (index: Int) in originals[index].first?.isUppercase == true }
        while i < words.count, picked.count < 3, !stops.contains(words[i]), SpokenNumber.small[words[i]] == nil,
              words[i].allSatisfy({ $0.isLetter || $0 == "'" }),
              i == start || particles.contains(words[i]) || capitalised(i) == capitalised(start) {
            picked.append(originals[i].prefix(1).uppercased() + originals[i].dropFirst().lowercased())
            i += 1
        }
        return picked.isEmpty ? nil : picked.joined(separator: " ")
    }
}
