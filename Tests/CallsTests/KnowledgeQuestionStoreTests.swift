import Dialogue
import Foundation
import Knowledge
import Testing
import TestSupport
@testable import Calls

/// The questions callers asked that the knowledge base could not answer, on both databases: kept
/// with the call's result, listed (by campaign too), counted in the statistics, and closed by the
/// operator's answer — a FAQ row the next search finds — or a dismissal. Concurrent answers to one
/// collection all land.
@Suite struct KnowledgeQuestionStoreTests {
    /// A finished call of `campaign` whose caller asked `questions` and had them passed on.
    static func call(_ store: CallStore, _ n: Int, campaign: String?, questions: [String], at now: Date) async throws -> String {
        var call = CallRecord(outboundId: CallRecord.newID(), callerNumber: "0701234", calleeNumber: "010000000\(n)", purpose: "p", questions: ["Can you come?"])
        call.campaignId = campaign
        call.knowledge = ["clinic"]
        try await store.insert(call)
        var tracker = TaskTracker(questions: call.questions)
        tracker.openQuestions = questions
        let result = ConversationResult(tracker: tracker, transcript: [], durationSeconds: 10, context: ConversationContext(purpose: "p", questions: call.questions))
        try await store.saveResult(callID: call.outboundId, result: result, now: now)
        return call.outboundId
    }

    @Test(arguments: StoreBackend.allCases)
    func keptListedAnsweredAndDismissed(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let campaign = Campaign(name: "c", callerNumber: "0701234")
        try await store.campaigns.create(campaign)
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let first = try await Self.call(store, 1, campaign: campaign.id, questions: ["Do you sell gift cards?"], at: start)
        let second = try await Self.call(store, 2, campaign: campaign.id, questions: ["Who you fell gift card?", "Can I bring my dog?"], at: start + 60)
        _ = try await Self.call(store, 3, campaign: nil, questions: ["Is the lift working?"], at: start + 120)

        let open = try await store.knowledgeQuestions.open(since: start)
        #expect(open.map(\.question) == ["Is the lift working?", "Can I bring my dog?", "Who you fell gift card?", "Do you sell gift cards?"], "newest first")
        #expect(open.allSatisfy { $0.collections == ["clinic"] } && open.filter { $0.callID == second }.count == 2)
        #expect(try await store.knowledgeQuestions.open(since: start, campaignID: campaign.id).count == 3)
        #expect(try await store.knowledgeQuestions.open(since: start + 61).count == 1, "asked before `since`: not listed")
        let within = try await store.knowledgeQuestions.open(askedWithin: 1, now: start + 86_400 + 90)
        #expect(within.questions.map(\.question) == ["Is the lift working?"] && within.since == start + 90, "the last day's, from `now`")
        let groups = QuestionGroups.group(open.map { .init(id: $0.id, text: $0.question, askedAt: $0.askedAt) })
        #expect(groups.map(\.count) == [2, 1, 1] && groups[0].question == "Who you fell gift card?", "\(groups.map(\.question))")
        var stats = try await store.statistics(campaignID: campaign.id)
        #expect(stats.openQuestions.numerator == 3 && stats.openQuestions.denominator == 3)

        // The operator answers the gift-card group in one step: the row is searchable, both questions closed.
        let knowledge = KnowledgeBase(store: store.knowledge, embedder: nil)
        let giftCards = open.filter { $0.question.contains("gift") }.map(\.id)
        let answered = try await knowledge.answer(questionIDs: giftCards, collection: "clinic", question: "Do you sell gift cards?",
                                                  with: .text("Yes: gift cards of any amount at the front desk."), now: start + 200)
        #expect(answered.resolved == 2 && answered.document.name == KnowledgeStore.answeredDocument && answered.document.chunks == 1)
        let found = try await store.knowledge.searchKnowledge("Do you sell gift cards?", in: ["clinic"], limit: 1)
        #expect(found.first?.chunk.text == "Yes: gift cards of any amount at the front desk." && found.first?.chunk.line == 2)
        #expect(try await store.knowledgeQuestions.open(since: start).map(\.question) == ["Is the lift working?", "Can I bring my dog?"])

        // Another wording of that row: its answer, copied; a row id that is not there is refused.
        let dog = try #require(open.first { $0.question == "Can I bring my dog?" })
        let row = try #require(found.first)
        let again = try await knowledge.answer(questionIDs: [dog.id], collection: "clinic", question: "Can I buy a voucher?", with: .sameAs(chunkID: row.id))
        #expect(again.resolved == 1 && again.document.chunks == 2)
        #expect(try await store.knowledge.chunks(collection: "clinic", document: KnowledgeStore.answeredDocument).map(\.title)
                == ["Do you sell gift cards?", "Can I buy a voucher?"])
        await #expect(throws: KnowledgeAnswerFailure.noSuchRow(987_654)) {
            try await knowledge.answer(questionIDs: [], collection: "clinic", question: "Q?", with: .sameAs(chunkID: 987_654))
        }

        // Dismissed: closed without an answer, once.
        let lift = try #require(open.first { $0.question == "Is the lift working?" })
        #expect(try await store.knowledgeQuestions.dismiss(ids: [lift.id]) == 1)
        #expect(try await store.knowledgeQuestions.dismiss(ids: [lift.id]) == 0, "already closed")
        #expect(try await store.knowledgeQuestions.open(since: start).isEmpty)
        stats = try await store.statistics(campaignID: campaign.id)
        #expect(stats.openQuestions.numerator == 0 && stats.openQuestions.denominator == 3)
        #expect(try await store.knowledgeQuestions.openCount(campaignID: campaign.id) == 0)
        #expect(first != second)
    }

    @Test(arguments: StoreBackend.allCases)
    func concurrentAnswersToOneCollectionAllLand(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let knowledge = KnowledgeBase(store: store.knowledge, embedder: nil)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 1...12 {
                group.addTask { _ = try await knowledge.answer(questionIDs: [], collection: "shop", question: "Question \(n)?", with: .text("Answer \(n), \"quoted\", with a comma.")) }
            }
            try await group.waitForAll()
        }
        let rows = try await store.knowledge.chunks(collection: "shop", document: KnowledgeStore.answeredDocument)
        #expect(Set(rows.map(\.title)) == Set((1...12).map { "Question \($0)?" }), "no answer lost to another")
        #expect(rows.allSatisfy { $0.text.hasSuffix("\"quoted\", with a comma.") && $0.isFAQ }, "the CSV file round-trips quotes and commas")
        #expect(rows.map(\.line) == Array(2...13))
    }
}
