import Testing
import Tools
@testable import Knowledge

/// `search_knowledge` as the model engines see it: the passages it finds, and which questions it
/// keeps for the operator — none found, or only matches too far from the question to answer from
/// for sure (the local engine's own measure, `KnowledgeAnswerPolicy`).
@Suite struct KnowledgeSearchToolTests {
    /// Hands back the hits it was given, whatever is asked.
    struct FixedHits: KnowledgeSearching {
        var hits: [KnowledgeHit]
        func searchKnowledge(_ query: String, in collections: [String], limit: Int) async throws -> [KnowledgeHit] { Array(hits.prefix(limit)) }
    }

    static func hit(similarity: Double?, coverage: Double = 0) -> KnowledgeHit {
        KnowledgeHit(collection: "clinic", document: "faq.csv", chunk: KnowledgeChunk(title: "Is there parking?", text: "Behind the building.", line: 2, isFAQ: true),
                     score: 1, coverage: coverage, similarity: similarity)
    }

    static func count(_ results: JSONValue?) -> Int? {
        if case .array(let items)? = results { items.count } else { nil }
    }

    static func search(_ hits: [KnowledgeHit]) async -> LocalToolAnswer {
        await KnowledgeSearchTool(searcher: FixedHits(hits: hits), collections: ["clinic"]).run(.object(["query": .string("Where can I leave my car?")]))
    }

    @Test func aCloseMatchIsHandedToTheModelAndNothingIsKept() async {
        let policy = KnowledgeAnswerPolicy.standard
        let answer = await Self.search([Self.hit(similarity: policy.similarityThreshold + 0.01)])
        #expect(answer.passedOn == nil)
        #expect(Self.count(answer.answer["results"]) == 1 && answer.answer["note"] == nil)
    }

    @Test func onlyWeakMatchesAreHandedOverWithANoteAndTheQuestionIsKept() async {
        let policy = KnowledgeAnswerPolicy.standard
        let answer = await Self.search([Self.hit(similarity: policy.similarityThreshold - 0.01), Self.hit(similarity: policy.similarityThreshold - 0.05)])
        #expect(answer.passedOn == "Where can I leave my car?")
        #expect(Self.count(answer.answer["results"]) == 2)
        #expect(answer.answer["note"]?.stringValue?.contains("pass the question on") == true)
        // Without a model the share of the question's terms decides.
        #expect(await Self.search([Self.hit(similarity: nil, coverage: policy.threshold)]).passedOn == nil)
        #expect(await Self.search([Self.hit(similarity: nil, coverage: policy.threshold / 2)]).passedOn != nil)
    }

    @Test func nothingFoundIsKept() async {
        let answer = await Self.search([])
        #expect(answer.passedOn == "Where can I leave my car?" && Self.count(answer.answer["results"]) == 0)
    }
}
