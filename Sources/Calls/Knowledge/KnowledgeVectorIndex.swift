import Knowledge

/// The chunks' embeddings in memory, per collection, for a brute-force nearest-neighbour scan (a
/// few milliseconds at 10,000 chunks). A chunk may have more than one vector (a FAQ row: itself
/// as a passage, its question as a question); its similarity is their mean. Before each search the
/// store says whether the collection changed (its chunk count and newest id, one indexed query),
/// so an upload on another node is seen at the next search.
actor KnowledgeVectorIndex {
    struct Neighbor: Sendable {
        var id: Int64
        var similarity: Float
    }

    private struct Collection {
        var generation: [Int64]
        var ids: [Int64]
        var vectors: [Float]
    }

    private var collections: [String: Collection] = [:]

    func nearest(_ query: [Float], in name: String, store: KnowledgeStore, limit: Int) async throws -> [Neighbor] {
        let generation = try await store.generation(collection: name)
        if collections[name]?.generation != generation {
            let (ids, vectors) = try await store.vectors(collection: name)
            collections[name] = Collection(generation: generation, ids: ids, vectors: vectors)
        }
        guard let collection = collections[name], !collection.ids.isEmpty else { return [] }
        var scored = Self.chunkSimilarities(query, collection, where: { _ in true })
        scored.sort { $0.similarity > $1.similarity }
        return Array(scored.prefix(limit))
    }

    /// Cosine similarity (the vectors are L2-normalized) of `query` with each id's chunk, where known.
    func similarities(_ query: [Float], ids: [Int64], in names: [String]) -> [Int64: Float] {
        var found: [Int64: Float] = [:]
        let wanted = Set(ids)
        for name in names {
            guard let collection = collections[name] else { continue }
            for neighbor in Self.chunkSimilarities(query, collection, where: wanted.contains) { found[neighbor.id] = neighbor.similarity }
        }
        return found
    }

    /// Each chunk's similarity to `query`: the mean over its vectors, which sit one after another
    /// under the same id (the store reads them in id order).
    private static func chunkSimilarities(_ query: [Float], _ collection: Collection, where included: (Int64) -> Bool) -> [Neighbor] {
        var neighbors: [Neighbor] = []
        var i = 0
        while i < collection.ids.count {
            let id = collection.ids[i]
            var end = i + 1
            while end < collection.ids.count, collection.ids[end] == id { end += 1 }
            if included(id) {
                var sum: Float = 0
                for v in i..<end { sum += dot(query, collection.vectors, at: v * query.count) }
                neighbors.append(Neighbor(id: id, similarity: sum / Float(end - i)))
            }
            i = end
        }
        return neighbors
    }

    static func dot(_ query: [Float], _ vectors: [Float], at offset: Int) -> Float {
        query.withUnsafeBufferPointer { q in
            vectors.withUnsafeBufferPointer { v in
                var sum = SIMD8<Float>()
                var i = 0
                while i + 8 <= q.count {
                    sum += SIMD8(q[i..<(i + 8)]) * SIMD8(v[(offset + i)..<(offset + i + 8)])
                    i += 8
                }
                var total = sum.sum()
                while i < q.count { total += q[i] * v[offset + i]; i += 1 }
                return total
            }
        }
    }
}
