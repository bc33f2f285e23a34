import Foundation
import Knowledge
import Logging

/// What calls and the API search: the chunks' embeddings when the embedding model is installed
/// (a question asked in other words than the document's still finds it), else the store's word
/// index (BM25 / `ts_rank`). The two rankings can be fused (reciprocal rank fusion, k = 60, words
/// weighted `wordsWeight`); by default meaning alone ranks, which measured best.
public final class KnowledgeBase: KnowledgeSearching {
    public let store: KnowledgeStore
    /// nil: words only (`knowledge.embeddings: off`, or the model is not installed).
    public let embedder: E5Embedder?
    let vectors = KnowledgeVectorIndex()
    /// How much the ranking by words counts beside the ranking by meaning when there is a model
    /// (1: as much; 0: not at all — the default). Measured on the knowledge bench (questions worded
    /// unlike the FAQ, docs/guide/tools-and-knowledge.md, "Tools and knowledge"): meaning alone found the right row first for
    /// 78 % (English) and 73 % (Korean) of the questions, words at half weight beside it 69 % and
    /// 75 %, words alone 50.5 % and 60 %.
    public let wordsWeight: Double

    /// Candidates each ranking contributes before fusion.
    static let candidates = 20
    static let fusionK = 60.0

    public init(store: KnowledgeStore, embedder: E5Embedder?, wordsWeight: Double = 0) {
        self.store = store
        self.embedder = embedder
        self.wordsWeight = wordsWeight
    }

    /// The embedder `knowledge.embeddings` asks for, next to Moonshine in `make deps`'s folder.
    /// Asked for by name and missing, the server does not start; under `auto` it goes on with
    /// words only, and says so.
    public static func embedder(for config: VoiceBridgeConfig, logger: Logger) throws -> E5Embedder? {
        guard config.knowledge.embeddings != .off else { return nil }
        let deps = (config.engine.local.moonshinePath as NSString).deletingLastPathComponent
        do {
            return try E5Embedder.shared(in: deps.isEmpty ? "." : deps)
        } catch {
            guard config.knowledge.embeddings == .auto else { throw CallSystem.StartupError(description: "knowledge.embeddings local: \(error)") }
            logger.warning("the knowledge base's embedding model is not installed (make deps); it searches by words only", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Stores `documents` in `collection` (see `KnowledgeStore.replace`), embedded first when
    /// there is a model: a failure there stores nothing.
    public func upload(collection: String, documents: [KnowledgeDocument]) async throws -> [KnowledgeStore.DocumentInfo] {
        var embeddings: [[[Float]]]?
        if let embedder {
            var all: [[[Float]]] = []
            for document in documents { all.append(try await Self.embeddings(of: document.chunks, by: embedder)) }
            embeddings = all
        }
        return try await store.replace(collection: collection, documents: documents, embeddings: embeddings)
    }

    /// What answers a question callers asked: the operator's own words, or an existing row's answer
    /// (the question becomes another wording of that row).
    public enum Answer: Sendable, Equatable {
        case text(String)
        case sameAs(chunkID: Int64)
    }

    /// The operator answers questions callers asked (`questionIDs`, closed by it): the FAQ row
    /// `question` → `answer` joins `collection`'s answered questions, embedded first when there is
    /// a model, and the next call's search finds it.
    public func answer(questionIDs: [Int64], collection: String, question: String, with answer: Answer,
                       now: Date = Date()) async throws -> (document: KnowledgeStore.DocumentInfo, resolved: Int) {
        let text: String
        switch answer {
        case .text(let written): text = written
        case .sameAs(let id):
            guard let row = try await store.hits(ids: [id], query: question).first, row.chunk.isFAQ else { throw KnowledgeAnswerFailure.noSuchRow(id) }
            text = row.chunk.text
        }
        let chunk = KnowledgeChunk(title: question, text: text, line: 0, isFAQ: true)
        var embedding: [Float]?
        if let embedder { embedding = try await Self.embeddings(of: [chunk], by: embedder)[0] }
        return try await store.appendAnswer(collection: collection, question: question, answer: text, embedding: embedding, resolving: questionIDs, now: now)
    }

    /// What a chunk's first embedding is made of: its title (a FAQ's question, a passage's headings) and text.
    public static func passage(_ chunk: KnowledgeChunk) -> String {
        chunk.title.isEmpty ? chunk.text : chunk.title + "\n" + chunk.text
    }

    /// Each chunk's vectors, one after another, as the store keeps them: the chunk as a passage
    /// and, for a FAQ row (unless `questionsApart` is false: the ranking before issue 60), its
    /// question on its own embedded as a question — a caller's question is then also compared with
    /// the row's question as one question with another, the model's symmetric use. A chunk's score
    /// is the mean of its vectors' similarities (`KnowledgeVectorIndex`). Chosen on the labelled
    /// set's tuning half (docs/guide/tools-and-knowledge.md): recall@3 70.8 → 80.8 % (English) and
    /// 53.3 → 57.5 % (Korean), and more answers the offline agent can give at 98 % right.
    public static func embeddings(of chunks: [KnowledgeChunk], by embedder: E5Embedder, questionsApart: Bool = true) async throws -> [[Float]] {
        var vectors = try await embedder.passages(chunks.map(passage))
        guard questionsApart else { return vectors }
        for (i, chunk) in chunks.enumerated() where chunk.isFAQ && !chunk.title.isEmpty {
            vectors[i] += try await embedder.query(chunk.title)
        }
        return vectors
    }

    public func searchKnowledge(_ query: String, in collections: [String], limit: Int) async throws -> [KnowledgeHit] {
        guard let embedder else { return try await store.searchKnowledge(query, in: collections, limit: limit) }
        let byWords = wordsWeight > 0 ? try await store.searchKnowledge(query, in: collections, limit: max(limit, Self.candidates)) : []
        let question = try await embedder.query(query)
        var byMeaning: [KnowledgeVectorIndex.Neighbor] = []
        for collection in collections {
            byMeaning += try await vectors.nearest(question, in: collection, store: store, limit: max(limit, Self.candidates))
        }
        byMeaning.sort { $0.similarity > $1.similarity }
        byMeaning = Array(byMeaning.prefix(max(limit, Self.candidates)))

        var fused: [Int64: Double] = [:]
        for (rank, hit) in byWords.enumerated() { fused[hit.id, default: 0] += wordsWeight / (Self.fusionK + Double(rank + 1)) }
        for (rank, neighbor) in byMeaning.enumerated() { fused[neighbor.id, default: 0] += 1 / (Self.fusionK + Double(rank + 1)) }
        let best = fused.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(limit)

        var hits = Dictionary(byWords.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let missing = best.map(\.key).filter { hits[$0] == nil }
        for hit in try await store.hits(ids: missing, query: query) { hits[hit.id] = hit }
        // The scan's own similarities; only chunks found by words alone are scored here.
        var similarities = Dictionary(byMeaning.map { ($0.id, $0.similarity) }, uniquingKeysWith: { first, _ in first })
        let unscored = best.map(\.key).filter { similarities[$0] == nil }
        if !unscored.isEmpty { similarities.merge(await vectors.similarities(question, ids: unscored, in: collections)) { first, _ in first } }
        return best.compactMap { id, score in
            guard var hit = hits[id] else { return nil }   // deleted between the two reads
            hit.score = score
            hit.similarity = similarities[id].map(Double.init)
            return hit
        }
    }
}
