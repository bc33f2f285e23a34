/// A chunk a search found, with where it came from and how well it matched.
public struct KnowledgeHit: Sendable, Equatable, Codable {
    /// The chunk's row in the store.
    public var id: Int64
    public var collection: String
    public var document: String
    public var chunk: KnowledgeChunk
    /// The database's rank (BM25 on SQLite, `ts_rank` on PostgreSQL), higher is better; only
    /// comparable within one search.
    public var score: Double
    /// Share of the question's terms found in the chunk (0…1): comparable between searches, so
    /// the local engine's threshold is set on it.
    public var coverage: Double
    /// Cosine similarity of the question's and the chunk's embeddings (−1…1), when both have one.
    public var similarity: Double?

    public init(id: Int64 = 0, collection: String, document: String, chunk: KnowledgeChunk, score: Double, coverage: Double, similarity: Double? = nil) {
        self.id = id
        self.similarity = similarity
        self.collection = collection
        self.document = document
        self.chunk = chunk
        self.score = score
        self.coverage = coverage
    }

    /// The share of `query`'s distinct terms that the chunk's terms hold.
    public static func coverage(of queryTerms: [String], in chunkTerms: Set<Substring>) -> Double {
        guard !queryTerms.isEmpty else { return 0 }
        return Double(queryTerms.filter { chunkTerms.contains(Substring($0)) }.count) / Double(queryTerms.count)
    }
}

/// Where calls search: the store (SQLite FTS5 or PostgreSQL full-text search).
public protocol KnowledgeSearching: Sendable {
    /// The best `limit` chunks of `collections` for `query`, best first.
    func searchKnowledge(_ query: String, in collections: [String], limit: Int) async throws -> [KnowledgeHit]
}

/// Names of collections: they appear in URLs and templates.
public enum KnowledgeCollection {
    /// Most collections one call searches.
    public static let perCallLimit = 10

    /// What is wrong with a call's or template's `knowledge` list, by field (`knowledge.1`).
    public static func problems(in names: [String]) -> [(field: String, message: String)] {
        var problems = names.enumerated().compactMap { i, name in nameProblem(name).map { (field: "knowledge.\(i)", message: $0) } }
        if names.count > perCallLimit { problems.append((field: "knowledge", message: "names \(names.count) collections; the limit is \(perCallLimit)")) }
        return problems
    }

    /// 1–64 of a–z, 0–9, `-` and `_`, starting with a letter or digit.
    public static func nameProblem(_ name: String) -> String? {
        guard let first = name.unicodeScalars.first, name.count <= 64 else {
            return name.isEmpty ? "a collection needs a name" : "the name is longer than 64 characters"
        }
        let allowed = name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
        guard allowed, first != "-", first != "_" else { return "use a–z, 0–9, - and _ (starting with a letter or digit)" }
        return nil
    }
}
