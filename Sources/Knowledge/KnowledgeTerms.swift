import Foundation

/// The words a knowledge chunk is found by, the same for indexing and for a query and for both
/// databases: the store keeps them as space-separated terms that SQLite's FTS5 (`unicode61`) and
/// PostgreSQL's `simple` text search take as they are.
///
/// English words are lower-cased, common function words dropped and a light suffix stemming
/// applied ("parking", "parked" → "park"). Korean attaches particles and endings to the word
/// ("주차는", "주차장이", "주차할"), and no dictionary ships with the server, so Hangul is indexed
/// as overlapping syllable pairs: "주차장이" → 주차 차장 장이, and "주차는" shares 주차 with it.
/// (FTS5's `trigram` tokenizer needs three characters, and most Korean nouns are two syllables.)
public enum KnowledgeTerms {
    /// Every term of `text`, in order, repeats kept (BM25 counts them).
    public static func terms(of text: String) -> [String] {
        var terms: [String] = []
        for word in words(of: text) {
            if Hangul.occurs(in: word) {
                terms += hangulTerms(word)
            } else if let term = latinTerm(word) {
                terms.append(term)
            }
        }
        return terms
    }

    /// The distinct terms of a question, in the order they first appear.
    public static func queryTerms(of text: String) -> [String] {
        var seen = Set<String>()
        return terms(of: text).filter { seen.insert($0).inserted }
    }

    /// Runs of letters and digits, lower-cased and NFKC-normalized (full-width digits, compatibility jamo).
    static func words(of text: String) -> [String] {
        let normalized = text.precomposedStringWithCompatibilityMapping.lowercased()
        var words: [String] = [], current = String.UnicodeScalarView()
        for scalar in normalized.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) {
                current.append(scalar)
            } else if !current.isEmpty {
                words.append(String(current)); current = .init()
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }

    /// Syllable pairs of each Hangul run in `word`; a run of one syllable stands for itself.
    /// Letters or digits glued to the Hangul ("3층", "kt에서") are terms of their own.
    static func hangulTerms(_ word: String) -> [String] {
        var terms: [String] = [], run: [Character] = [], other = ""
        func flushRun() {
            if run.count == 1 { terms.append(String(run)) }
            if run.count > 1 { for i in 0..<(run.count - 1) { terms.append(String(run[i...(i + 1)])) } }
            run = []
        }
        func flushOther() {
            if let term = latinTerm(other) { terms.append(term) }
            other = ""
        }
        for character in word {
            if character.unicodeScalars.allSatisfy(Hangul.isSyllable) {
                flushOther(); run.append(character)
            } else {
                flushRun(); other.append(character)
            }
        }
        flushRun(); flushOther()
        return terms
    }

    /// A word as a term: nil for function words; otherwise lightly stemmed.
    static func latinTerm(_ word: String) -> String? {
        guard !word.isEmpty, !stopWords.contains(word) else { return nil }
        if word.allSatisfy(\.isNumber) { return word }
        return stem(word)
    }

    /// Strips the common English inflections; enough to meet "parking" with "park" and "hours"
    /// with "hour", not a full Porter stemmer.
    static func stem(_ word: String) -> String {
        var w = word
        if w.hasSuffix("'s") { w.removeLast(2) }
        guard w.count > 3 else { return w }
        for (suffix, replacement) in suffixes where w.hasSuffix(suffix) && w.count - suffix.count >= 3 {
            w = String(w.dropLast(suffix.count)) + replacement
            break
        }
        // "stopping" → "stopp" → "stop"
        if let last = w.last, w.count > 3, w.dropLast().last == last, !"lsz".contains(last), !"aeiou".contains(last) { w.removeLast() }
        return w
    }

    static let suffixes: [(String, String)] = [
        ("ational", "ate"), ("ization", "ize"), ("fulness", "ful"), ("ousness", "ous"), ("iveness", "ive"),
        ("ements", "e"), ("ement", "e"), ("ments", ""), ("ment", ""), ("ities", "ity"), ("ingly", ""), ("edly", ""),
        ("ings", ""), ("ing", ""), ("ies", "y"), ("ied", "y"), ("sses", "ss"), ("ers", ""), ("er", ""), ("ed", ""),
        ("ly", ""), ("es", "e"), ("s", ""),
    ]

    static let stopWords: Set<String> = [
        "a", "an", "the", "and", "or", "but", "if", "then", "so", "of", "to", "in", "on", "at", "by", "for", "with", "from",
        "about", "as", "into", "than", "too", "very", "just", "also", "there", "here", "this", "that", "these", "those",
        "i", "me", "my", "we", "us", "our", "you", "your", "he", "she", "it", "its", "they", "them", "their",
        "is", "am", "are", "was", "were", "be", "been", "being", "do", "does", "did", "doing", "have", "has", "had",
        "can", "could", "will", "would", "shall", "should", "may", "might", "must", "what", "which", "who", "whom",
        "how", "when", "where", "why", "any", "some", "all", "please", "tell", "know", "like", "want", "need", "get",
        "hello", "hi", "um", "uh", "oh", "ok", "okay", "yes", "no", "not", "thank", "thanks", "much", "many", "let",
    ]
}
