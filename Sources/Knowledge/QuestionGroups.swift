import Foundation

/// Questions callers asked, put together when they ask the same thing in about the same words, so
/// the operator sees "asked 14 times" once rather than fourteen rows. Two questions are one group
/// when at least half of the terms either holds are held by both. English terms are the search's
/// own (function words dropped, "parking" meets "park"); a Korean word counts by its first two
/// syllables, which is where its stem is ("주차는", "주차가" → 주차) — the particles and endings
/// after it would make two wordings of one question look apart. Questions without a term (all
/// function words) group only with the same words.
public enum QuestionGroups {
    public struct Asked: Sendable, Equatable {
        public var id: Int64
        public var text: String
        public var askedAt: Date

        public init(id: Int64, text: String, askedAt: Date) {
            self.id = id
            self.text = text
            self.askedAt = askedAt
        }
    }

    public struct Group: Sendable, Equatable {
        /// The group's newest wording: the one it is shown by.
        public var question: String
        /// Newest first.
        public var members: [Asked]
        public var count: Int { members.count }
        public var lastAskedAt: Date { members.first?.askedAt ?? .distantPast }
    }

    /// Least share of the two questions' terms (together) that both hold.
    public static let sameQuestion = 0.5

    /// `questions` grouped, the most asked first (then the most recently asked).
    public static func group(_ questions: [Asked]) -> [Group] {
        var groups: [Group] = [], groupTerms: [Set<String>] = []
        var byTerm: [String: [Int]] = [:]
        for asked in questions.sorted(by: { ($0.askedAt, $0.id) > ($1.askedAt, $1.id) }) {
            var own = Self.terms(of: asked.text)
            if own.isEmpty { own = ["\u{0}" + KnowledgeTerms.words(of: asked.text).joined(separator: " ")] }
            let candidates = Set(own.flatMap { byTerm[$0] ?? [] }).sorted()
            if let match = candidates.first(where: { overlap(own, groupTerms[$0]) >= sameQuestion }) {
                groups[match].members.append(asked)
                continue
            }
            groups.append(Group(question: asked.text, members: [asked]))
            groupTerms.append(own)
            for term in own { byTerm[term, default: []].append(groups.count - 1) }
        }
        return groups.enumerated().sorted { a, b in
            a.element.count != b.element.count ? a.element.count > b.element.count : a.offset < b.offset
        }.map(\.element)
    }

    static func terms(of text: String) -> Set<String> {
        Set(KnowledgeTerms.words(of: text).compactMap { word -> String? in
            guard let first = word.first, first.unicodeScalars.allSatisfy(Hangul.isSyllable) else { return KnowledgeTerms.latinTerm(word) }
            let syllables = word.prefix { $0.unicodeScalars.allSatisfy(Hangul.isSyllable) }
            return String(syllables.prefix(2))
        })
    }

    /// Shared terms over all terms of the two (Jaccard).
    static func overlap(_ a: Set<String>, _ b: Set<String>) -> Double {
        let union = a.union(b).count
        return union == 0 ? 0 : Double(a.intersection(b).count) / Double(union)
    }
}
