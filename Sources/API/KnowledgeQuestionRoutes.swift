import Calls
import Foundation
import Hummingbird
import Knowledge

/// `/api/knowledge-questions`: what callers asked that the knowledge base could not answer, grouped
/// with their counts, and the operator's one step that closes a group — a FAQ row written for it
/// (or the question made another wording of an existing row), or a dismissal.
extension VoiceBridgeServer {
    /// Most questions one answer or dismissal closes (a group's members).
    static let maximumQuestionsPerAnswer = 500

    func addKnowledgeQuestionRoutes(to api: RouterGroup<BasicRequestContext>) {
        let questions = api.group("knowledge-questions")
        // `?days=7` (1–365) and `?campaign=cp-…`: the open questions asked since, grouped.
        questions.get { request, _ -> KnowledgeQuestionGroups in
            let query = request.uri.queryParameters
            let days = query.get("days").map { Int($0) ?? 0 } ?? 7
            guard (1...365).contains(days) else {
                throw ProblemDetails(.unprocessableContent, detail: "invalid query parameters", errors: [.init(field: "days", message: "must be a whole number from 1 to 365")])
            }
            let campaign = query.get("campaign")
            if let campaign, try await self.store.campaigns.campaign(id: campaign) == nil { throw ProblemDetails(.notFound, detail: "no campaign \(campaign)") }
            let open = try await self.store.knowledgeQuestions.open(askedWithin: days, campaignID: campaign)
            return KnowledgeQuestionGroups(open: open.questions, since: open.since)
        }
        // `{"question_ids": […], "collection": "clinic", "question": "…", "answer": "…"}`, or
        // `"same_as": <FAQ row id>` in place of `answer`.
        questions.post("answer") { request, _ -> KnowledgeQuestionsAnswered in
            let body = try await Self.decodeJSONBody(request, as: KnowledgeAnswerBody.self)
            var problems = Self.questionIDProblems(body.questionIDs)
            if let problem = KnowledgeCollection.nameProblem(body.collection ?? "") { problems.append(.init(field: "collection", message: problem)) }
            let question = (body.question ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            if question.isEmpty || question.count > 500 { problems.append(.init(field: "question", message: "must be 1 to 500 characters")) }
            let answer: KnowledgeBase.Answer
            switch (body.answer?.trimmingCharacters(in: .whitespacesAndNewlines), body.sameAs) {
            case (let text?, nil) where !text.isEmpty && text.count <= 4_000: answer = .text(text)
            case (nil, let id?): answer = .sameAs(chunkID: id)
            case (_?, nil):
                problems.append(.init(field: "answer", message: "must be 1 to 4000 characters")); answer = .text("")
            default:
                problems.append(.init(field: "answer", message: "give answer (the FAQ's answer) or same_as (an existing FAQ row's id), one of them")); answer = .text("")
            }
            guard problems.isEmpty else { throw ProblemDetails(.unprocessableContent, detail: "invalid answer", errors: problems) }
            do {
                let stored = try await self.knowledge.answer(questionIDs: body.questionIDs ?? [], collection: body.collection ?? "", question: question, with: answer)
                return KnowledgeQuestionsAnswered(document: stored.document, resolved: stored.resolved)
            } catch let failure as KnowledgeAnswerFailure {
                let field = if case .noSuchRow = failure { "same_as" } else { "answer" }
                throw ProblemDetails(.unprocessableContent, detail: failure.description, errors: [.init(field: field, message: failure.description)])
            }
        }
        questions.post("dismiss") { request, _ -> KnowledgeQuestionsAnswered in
            let body = try await Self.decodeJSONBody(request, as: KnowledgeAnswerBody.self)
            let problems = Self.questionIDProblems(body.questionIDs)
            guard problems.isEmpty else { throw ProblemDetails(.unprocessableContent, detail: "invalid dismissal", errors: problems) }
            return KnowledgeQuestionsAnswered(document: nil, resolved: try await self.store.knowledgeQuestions.dismiss(ids: body.questionIDs ?? []))
        }
    }

    static func questionIDProblems(_ ids: [Int64]?) -> [ProblemDetails.InvalidField] {
        guard let ids, !ids.isEmpty else { return [.init(field: "question_ids", message: "must hold at least one question's id")] }
        return ids.count > maximumQuestionsPerAnswer ? [.init(field: "question_ids", message: "at most \(maximumQuestionsPerAnswer) in one request")] : []
    }
}

struct KnowledgeAnswerBody: Decodable {
    var questionIDs: [Int64]?
    var collection: String?
    var question: String?
    var answer: String?
    var sameAs: Int64?

    enum CodingKeys: String, CodingKey {
        case collection, question, answer
        case questionIDs = "question_ids"
        case sameAs = "same_as"
    }
}

/// The open questions, grouped (`QuestionGroups`), the most asked first.
struct KnowledgeQuestionGroups: ResponseEncodable {
    struct Group: Encodable {
        var question: String
        var count: Int
        var lastAskedAt: Date
        var questionIDs: [Int64]
        var calls: [String]
        /// The collections of the calls it was asked on, the most common first: where an answer goes.
        var collections: [String]
        /// Each wording, newest first (at most 20).
        var wordings: [String]

        enum CodingKeys: String, CodingKey {
            case question, count, calls, collections, wordings
            case lastAskedAt = "last_asked_at"
            case questionIDs = "question_ids"
        }
    }

    var since: Date
    var open: Int
    var groups: [Group]

    init(open questions: [KnowledgeQuestionStore.Question], since: Date) {
        self.since = since
        open = questions.count
        let byID = Dictionary(uniqueKeysWithValues: questions.map { ($0.id, $0) })
        groups = QuestionGroups.group(questions.map { .init(id: $0.id, text: $0.question, askedAt: $0.askedAt) }).map { group in
            let members = group.members.compactMap { byID[$0.id] }
            var uses: [String: Int] = [:]
            for member in members { for collection in member.collections { uses[collection, default: 0] += 1 } }
            var wordings: [String] = []
            for member in members where !wordings.contains(member.question) && wordings.count < 20 { wordings.append(member.question) }
            return Group(question: group.question, count: group.count, lastAskedAt: group.lastAskedAt, questionIDs: members.map(\.id),
                         calls: Array(Set(members.map(\.callID))).sorted(),
                         collections: uses.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key), wordings: wordings)
        }
    }
}

struct KnowledgeQuestionsAnswered: ResponseEncodable {
    /// The answered-questions document as it now is (nil for a dismissal).
    var document: KnowledgeStore.DocumentInfo?
    /// Questions closed: the ones still open of those named.
    var resolved: Int
}
