import Foundation
import Knowledge
import Testing
import TestSupport
@testable import Calls

/// The knowledge base on both databases: what an upload stores, what a search finds (English and
/// Korean), a re-upload replacing a document whole while searches run, and deletes.
@Suite struct KnowledgeStoreTests {
    static func document(_ name: String, _ text: String) throws -> KnowledgeDocument {
        try KnowledgeDocument.parse(name: name, bytes: Array(text.utf8), sha256: "sha-\(name)")
    }

    static let faq = """
        question,answer
        What are your opening hours?,We are open Monday to Friday from 9 am to 6 pm and Saturday until 1 pm.
        Is there parking at the clinic?,Yes: 20 parking spaces behind the building; the first hour is free.
        How do I cancel an appointment?,Call us or reply CANCEL to the reminder text at least a day before.
        주차장이 있나요?,건물 뒤에 주차 공간이 20대 있으며 첫 한 시간은 무료입니다.
        진료 시간은 어떻게 되나요?,"평일 오전 9시부터 오후 6시까지, 토요일은 오후 1시까지 진료합니다."
        """

    @Test(arguments: StoreBackend.allCases)
    func anUploadIsSearchableInEnglishAndKorean(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let stored = try await store.knowledge.replace(collection: "clinic", documents: [try Self.document("faq.csv", Self.faq),
                                                                                         try Self.document("guide.md", "# Guide\n## Pets\nDogs are welcome in the waiting room.")])
        #expect(stored.map(\.chunks) == [5, 1])
        let collections = try await store.knowledge.collections()
        #expect(collections.map(\.name) == ["clinic"] && collections.first?.documents == 2 && collections.first?.chunks == 6)

        let hours = try await store.knowledge.searchKnowledge("When do you open on Saturdays?", in: ["clinic"], limit: 3)
        #expect(hours.first?.chunk.title == "What are your opening hours?")
        #expect(hours.first?.document == "faq.csv" && hours.first?.chunk.line == 2)
        let parking = try await store.knowledge.searchKnowledge("주차는 어디에 하나요?", in: ["clinic"], limit: 3)
        #expect(parking.first?.chunk.title == "주차장이 있나요?")
        let pets = try await store.knowledge.searchKnowledge("can I bring my dog", in: ["clinic"], limit: 3)
        #expect(pets.first?.chunk.title == "Guide › Pets" && pets.first?.chunk.isFAQ == false)
        #expect(try await store.knowledge.searchKnowledge("When do you open?", in: ["other"], limit: 3).isEmpty)
        #expect(try await store.knowledge.searchKnowledge("um, so", in: ["clinic"], limit: 3).isEmpty)
        // Coverage: the share of the question's terms the chunk holds.
        #expect(hours.first.map { $0.coverage > 0.3 } == true)
    }

    @Test(arguments: StoreBackend.allCases)
    func aReUploadReplacesTheDocumentWholeWhileSearchesRun(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let old = try Self.document("faq.csv", "question,answer\n" + (1...40).map { "Old question \($0) about parking?,Old answer \($0).\n" }.joined())
        let new = try Self.document("faq.csv", "question,answer\n" + (1...40).map { "New question \($0) about parking?,New answer \($0).\n" }.joined())
        try await store.knowledge.replace(collection: "c", documents: [old])
        let mixed = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for n in 0..<10 { try await store.knowledge.replace(collection: "c", documents: [n.isMultiple(of: 2) ? new : old]) }
                return 0
            }
            for _ in 0..<3 {
                group.addTask {
                    var mixed = 0
                    for _ in 0..<30 {
                        let titles = try await store.knowledge.searchKnowledge("parking question", in: ["c"], limit: 100).map(\.chunk.title)
                        let olds = titles.filter { $0.hasPrefix("Old") }.count
                        if titles.count != 40 || (olds != 0 && olds != 40) { mixed += 1 }
                    }
                    return mixed
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mixed == 0, "a search saw a document half-replaced")
        #expect(try await store.knowledge.documents(collection: "c").map(\.chunks) == [40])
    }

    @Test(arguments: StoreBackend.allCases)
    func deletesTakeTheChunksOutOfTheIndex(backend: StoreBackend) async throws {
        let store = try await backend.store()
        try await store.knowledge.replace(collection: "a", documents: [try Self.document("faq.csv", Self.faq), try Self.document("notes.txt", "Parking is free on Sundays.")])
        try await store.knowledge.replace(collection: "b", documents: [try Self.document("notes.txt", "Parking is free on Sundays.")])
        #expect(try await store.knowledge.deleteDocument(collection: "a", name: "faq.csv"))
        #expect(try await !store.knowledge.deleteDocument(collection: "a", name: "faq.csv"))
        #expect(try await store.knowledge.searchKnowledge("parking", in: ["a"], limit: 10).map(\.document) == ["notes.txt"])
        #expect(try await store.knowledge.deleteCollection("a") == 1)
        #expect(try await store.knowledge.searchKnowledge("parking", in: ["a", "b"], limit: 10).map(\.collection) == ["b"])
        #expect(try await store.knowledge.chunks(collection: "b", document: "notes.txt").map(\.text) == ["Parking is free on Sundays."])
    }

    /// With the model, a FAQ row is kept as two vectors — the row as a passage, its question as a
    /// question — and a search scores it by their mean; a Markdown passage keeps one. Checked
    /// against the model's own embeddings, on both databases (the vectors travel as blobs).
    @Test(arguments: StoreBackend.allCases)
    func aFAQRowIsFoundByItselfAndByItsQuestionAsked(backend: StoreBackend) async throws {
        let embedder = try E5Embedder.shared(in: Fixtures.repository.appendingPathComponent(".deps").path)
        let store = try await backend.store()
        let base = KnowledgeBase(store: store.knowledge, embedder: embedder)
        let faq = try Self.document("faq.csv", "question,answer\nIs there parking at the clinic?,Yes: 20 spaces behind the building; the first hour is free.\n")
        _ = try await base.upload(collection: "clinic", documents: [faq, try Self.document("guide.md", "# Guide\n## Pets\nDogs are welcome in the waiting room.")])
        let (ids, vectors) = try await store.knowledge.vectors(collection: "clinic")
        #expect(ids.count == 3 && Set(ids).count == 2 && vectors.count == 3 * E5Embedder.dimension, "the FAQ row has two vectors, the passage one")

        let asked = "Can I leave my car somewhere while I am seen?"
        let question = try await embedder.query(asked)
        let row = faq.chunks[0]
        let passage = try await embedder.passages([KnowledgeBase.passage(row)])[0]
        let itsQuestion = try await embedder.query(row.title)
        func dot(_ a: [Float], _ b: [Float]) -> Double { Double(zip(a, b).reduce(0) { $0 + $1.0 * $1.1 }) }
        let hits = try await base.searchKnowledge(asked, in: ["clinic"], limit: 2)
        let found = try #require(hits.first { $0.chunk.isFAQ })
        #expect(abs((found.similarity ?? 0) - (dot(question, passage) + dot(question, itsQuestion)) / 2) < 1e-4)
        #expect(abs((found.similarity ?? 0) - dot(question, passage)) > 1e-4, "the row's question counts beside the row")
    }
}
