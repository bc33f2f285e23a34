import Foundation
import Knowledge

/// The knowledge base's documents and their search index (schema v18). An upload replaces its
/// documents in one transaction: a search running meanwhile sees the old chunks or the new ones,
/// never a document half-replaced, and a failed upload leaves the collection as it was.
public struct KnowledgeStore: StoreRoom, KnowledgeSearching {
    let shared: SharedDatabase

    public struct DocumentInfo: Codable, Sendable, Equatable {
        public var collection: String
        public var name: String
        public var kind: String
        public var bytes: Int
        public var chunks: Int
        public var sha256: String
        public var uploadedAt: Date

        enum CodingKeys: String, CodingKey {
            case collection, name, kind, bytes, chunks, sha256
            case uploadedAt = "uploaded_at"
        }
    }

    public struct CollectionInfo: Codable, Sendable, Equatable {
        public var name: String
        public var documents: Int
        public var chunks: Int
        public var updatedAt: Date

        enum CodingKeys: String, CodingKey {
            case name, documents, chunks
            case updatedAt = "updated_at"
        }
    }

    /// Stores `documents` in `collection`, each replacing the document of its name, all in one
    /// transaction; `embeddings`, when given, holds each document's chunks' vectors in order.
    @discardableResult
    public func replace(collection: String, documents: [KnowledgeDocument], embeddings: [[[Float]]]? = nil,
                        now: Date = Date()) async throws -> [DocumentInfo] {
        try await sqlWrite { sql in
            try documents.enumerated().map { d, document in
                try Self.store(document, embeddings: embeddings?[d].map(Self.blob), collection: collection, now: now, in: sql)
            }
        }
    }

    /// Puts `document` in place of the one of its name in `collection`, its chunks with their
    /// embeddings (`embeddings`, in the chunks' order, when given), inside the caller's transaction.
    static func store(_ document: KnowledgeDocument, embeddings: [Data?]?, collection: String, now: Date, in sql: any SQLConnection) throws -> DocumentInfo {
        try deleteDocument(collection: collection, name: document.name, in: sql)
        let info = DocumentInfo(collection: collection, name: document.name, kind: document.kind.rawValue, bytes: document.bytes,
                                chunks: document.chunks.count, sha256: document.sha256, uploadedAt: now)
        try sql.insert(info, into: "knowledge_documents")
        for (ordinal, chunk) in document.chunks.enumerated() {
            try insert(chunk, ordinal: ordinal, embedding: embeddings?[ordinal], collection: collection, document: document.name, in: sql)
        }
        return info
    }

    /// An embedding as the database keeps it: its floats' bytes.
    static func blob(_ vector: [Float]) -> Data {
        vector.withUnsafeBufferPointer { Data(buffer: $0) }
    }

    private static func insert(_ chunk: KnowledgeChunk, ordinal: Int, embedding: Data?, collection: String, document: String, in sql: any SQLConnection) throws {
        let titleTerms = chunk.titleTerms, bodyTerms = chunk.textTerms
        let columns = "collection, document, ordinal, line, title, body, faq, title_terms, body_terms, embedding"
        let values: [SQLValue] = [collection.sqlValue, document.sqlValue, ordinal.sqlValue, chunk.line.sqlValue, chunk.title.sqlValue, chunk.text.sqlValue,
                                  chunk.isFAQ.sqlValue, titleTerms.sqlValue, bodyTerms.sqlValue, embedding.map(SQLValue.blob) ?? .null]
        switch sql.dialect {
        case .postgres:
            // The terms are the lexemes as they are: no text-search parser between them and the index.
            try sql.execute("""
                INSERT INTO knowledge_chunks (\(columns), search) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                    setweight(array_to_tsvector(string_to_array(?, ' ')), 'A') || setweight(array_to_tsvector(string_to_array(?, ' ')), 'B'))
                """, values + [titleTerms.sqlValue, bodyTerms.sqlValue])
        case .sqlite:
            let id = try sql.scalar(Int64.self, "INSERT INTO knowledge_chunks (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id", values)
            try sql.execute("INSERT INTO knowledge_index (rowid, title_terms, body_terms) VALUES (?, ?, ?)", id, titleTerms, bodyTerms)
        }
    }

    @discardableResult
    static func deleteDocument(collection: String, name: String, in sql: any SQLConnection) throws -> Bool {
        if sql.dialect == .sqlite {
            try sql.execute("DELETE FROM knowledge_index WHERE rowid IN (SELECT id FROM knowledge_chunks WHERE collection = ? AND document = ?)", collection, name)
        }
        try sql.execute("DELETE FROM knowledge_chunks WHERE collection = ? AND document = ?", collection, name)
        return try sql.execute("DELETE FROM knowledge_documents WHERE collection = ? AND name = ?", collection, name) > 0
    }

    /// Removes one document and its chunks; false when there was none of that name.
    public func deleteDocument(collection: String, name: String) async throws -> Bool {
        try await sqlWrite { try Self.deleteDocument(collection: collection, name: name, in: $0) }
    }

    /// Removes a collection's documents; returns how many there were.
    public func deleteCollection(_ collection: String) async throws -> Int {
        try await sqlWrite { sql in
            let names = try sql.column(String.self, "SELECT name FROM knowledge_documents WHERE collection = ?", [collection.sqlValue])
            for name in names { try Self.deleteDocument(collection: collection, name: name, in: sql) }
            return names.count
        }
    }

    public func collections() async throws -> [CollectionInfo] {
        try await sqlRead { sql in
            try sql.fetchAll(CollectionInfo.self, """
                SELECT collection AS name, COUNT(*) AS documents, CAST(SUM(chunks) AS BIGINT) AS chunks, MAX(uploaded_at) AS updated_at
                FROM knowledge_documents GROUP BY collection ORDER BY collection
                """)
        }
    }

    public func documents(collection: String) async throws -> [DocumentInfo] {
        try await sqlRead { sql in
            try sql.fetchAll(DocumentInfo.self, "SELECT * FROM knowledge_documents WHERE collection = ? ORDER BY name", [collection.sqlValue])
        }
    }

    /// The chunks of one document, in order (what the dashboard shows of it).
    public func chunks(collection: String, document: String) async throws -> [KnowledgeChunk] {
        try await sqlRead { sql in
            try sql.rows("SELECT title, body, line, faq FROM knowledge_chunks WHERE collection = ? AND document = ? ORDER BY ordinal", collection, document)
                .map { KnowledgeChunk(title: try $0.get("title"), text: try $0.get("body"), line: try $0.get("line"), isFAQ: try $0.get("faq")) }
        }
    }

    /// The best chunks of `collections` for `query`: BM25 (title terms weigh twice) on SQLite,
    /// `ts_rank` over the weighted vector on PostgreSQL. A chunk matches if it holds any of the
    /// query's terms; a query without terms ("um, so…") finds nothing.
    public func searchKnowledge(_ query: String, in collections: [String], limit: Int) async throws -> [KnowledgeHit] {
        let terms = Array(KnowledgeTerms.queryTerms(of: query).prefix(64))
        guard !terms.isEmpty, !collections.isEmpty, limit > 0 else { return [] }
        let places = Array(repeating: "?", count: collections.count).joined(separator: ", ")
        let rows = try await sqlRead { sql in
            let columns = Self.hitColumns
            switch sql.dialect {
            case .sqlite:
                // Terms are letters and digits only; quoted, each is a plain FTS5 term.
                let match = terms.map { "\"\($0)\"" }.joined(separator: " OR ")
                return try sql.rows("""
                    SELECT \(columns), -bm25(knowledge_index, 2.0, 1.0) AS score
                    FROM knowledge_index JOIN knowledge_chunks c ON c.id = knowledge_index.rowid
                    WHERE knowledge_index MATCH ? AND c.collection IN (\(places))
                    ORDER BY bm25(knowledge_index, 2.0, 1.0) LIMIT ?
                    """, [match.sqlValue] + collections.map(\.sqlValue) + [limit.sqlValue])
            case .postgres:
                // tsquery's own syntax, each lexeme quoted (they hold no quotes): no parser rewrites them.
                let tsquery = terms.map { "'\($0)'" }.joined(separator: " | ")
                return try sql.rows("""
                    SELECT \(columns), CAST(ts_rank(c.search, q) AS DOUBLE PRECISION) AS score
                    FROM knowledge_chunks c, CAST(? AS tsquery) q
                    WHERE c.search @@ q AND c.collection IN (\(places))
                    ORDER BY score DESC, c.id LIMIT ?
                    """, [tsquery.sqlValue] + collections.map(\.sqlValue) + [limit.sqlValue])
            }
        }
        return try rows.map { try Self.hit($0, terms: terms, score: try $0.get("score")) }
    }

    static let hitColumns = "c.id, c.collection, c.document, c.line, c.title, c.body, c.faq, c.title_terms, c.body_terms"

    static func hit(_ row: SQLRow, terms: [String], score: Double) throws -> KnowledgeHit {
        let chunkTerms = Set((try row.get("title_terms", as: String.self) + " " + row.get("body_terms", as: String.self)).split(separator: " "))
        return KnowledgeHit(id: try row.get("id"), collection: try row.get("collection"), document: try row.get("document"),
                            chunk: KnowledgeChunk(title: try row.get("title"), text: try row.get("body"), line: try row.get("line"), isFAQ: try row.get("faq")),
                            score: score, coverage: KnowledgeHit.coverage(of: terms, in: chunkTerms))
    }

    /// The chunks with these ids (score 0), for `query`'s coverage; in no particular order.
    public func hits(ids: [Int64], query: String) async throws -> [KnowledgeHit] {
        guard !ids.isEmpty else { return [] }
        let terms = KnowledgeTerms.queryTerms(of: query)
        let places = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        let rows = try await sqlRead { try $0.rows("SELECT \(Self.hitColumns) FROM knowledge_chunks c WHERE c.id IN (\(places))", ids.map(\.sqlValue)) }
        return try rows.map { try Self.hit($0, terms: terms, score: 0) }
    }

    /// What identifies a collection's contents as they are now: its chunk count and newest chunk
    /// id (every upload adds new ids, every delete lowers the count). Cheap, for a cache to check.
    public func generation(collection: String) async throws -> [Int64] {
        try await sqlRead { sql in
            let row = try sql.rows("SELECT COUNT(*) AS n, COALESCE(MAX(id), 0) AS newest FROM knowledge_chunks WHERE collection = ?", collection)
            return [try row.first?.get("n") ?? 0, try row.first?.get("newest") ?? 0]
        }
    }

    /// Every embedded chunk of `collection`: its vectors one after another and, for each vector, the
    /// chunk's id (a FAQ row has two: `KnowledgeBase.embeddings(of:by:)`). A blob that is not whole
    /// vectors of `dimension` floats is skipped.
    public func vectors(collection: String, dimension: Int = E5Embedder.dimension) async throws -> (ids: [Int64], vectors: [Float]) {
        try await sqlRead { sql in
            var ids: [Int64] = [], vectors: [Float] = []
            for row in try sql.rows("SELECT id, embedding FROM knowledge_chunks WHERE collection = ? AND embedding IS NOT NULL ORDER BY id", collection) {
                guard case .blob(let data) = row.value("embedding") else { continue }
                let floats = data.count / MemoryLayout<Float>.size
                guard floats > 0, floats % dimension == 0, data.count % MemoryLayout<Float>.size == 0 else { continue }
                let id: Int64 = try row.get("id")
                ids += Array(repeating: id, count: floats / dimension)
                data.withUnsafeBytes { vectors.append(contentsOf: $0.bindMemory(to: Float.self)) }
            }
            return (ids, vectors)
        }
    }
}
