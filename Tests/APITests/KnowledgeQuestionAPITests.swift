import Dialogue
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport
@testable import API
@testable import Calls

/// `/api/knowledge-questions` through the in-process client: the questions calls passed on, grouped
/// with their counts; bad requests named field by field; an answer that closes a group and is found
/// by the next search; a dismissal; the count in `/api/stats`.
@Suite(.serialized) struct KnowledgeQuestionAPITests {
    static let json: HTTPFields = [.contentType: "application/json"]

    static func passedOn(_ store: CallStore, _ n: Int, _ questions: [String]) async throws {
        var call = CallRecord(outboundId: CallRecord.newID(), callerNumber: "0701234", calleeNumber: "010000000\(n)", purpose: "p", questions: ["Can you come?"])
        call.knowledge = ["clinic"]
        try await store.insert(call)
        var tracker = TaskTracker(questions: call.questions)
        tracker.openQuestions = questions
        try await store.saveResult(callID: call.outboundId, result: ConversationResult(tracker: tracker, transcript: [], durationSeconds: 5,
                                                                                      context: ConversationContext(purpose: "p", questions: call.questions)))
    }

    static func errors(_ response: TestResponse) -> [String] {
        ((OutboundAPITests.json(response.body)["errors"] as? [[String: Any]]) ?? []).map { "\($0["field"] ?? ""): \($0["message"] ?? "")" }
    }

    @Test func listAnswerAndDismissWhatCallsPassedOn() async throws {
        let h = try await OutboundAPITests.harness()
        try await Self.passedOn(h.store, 1, ["Do you sell gift cards?", "Can I pay by card?"])
        try await Self.passedOn(h.store, 2, ["Do you sell gift card?"])
        try await h.app.test(.router) { client in
            var groups: [[String: Any]] = []
            try await client.execute(uri: "/api/knowledge-questions", method: .get) { response in
                #expect(response.status == .ok)
                let body = OutboundAPITests.json(response.body)
                #expect(body["open"] as? Int == 3)
                groups = body["groups"] as? [[String: Any]] ?? []
            }
            #expect(groups.map { $0["count"] as? Int } == [2, 1])
            #expect(groups.first?["question"] as? String == "Do you sell gift card?" && groups.first?["collections"] as? [String] == ["clinic"])
            #expect((groups.first?["wordings"] as? [String]) == ["Do you sell gift card?", "Do you sell gift cards?"])
            let ids = try #require(groups.first?["question_ids"] as? [Int])

            for (query, field) in [("days=0", "days"), ("days=many", "days")] {
                try await client.execute(uri: "/api/knowledge-questions?\(query)", method: .get) { response in
                    #expect(response.status == .unprocessableContent && Self.errors(response).first?.hasPrefix(field + ":") == true, "\(query)")
                }
            }
            try await client.execute(uri: "/api/knowledge-questions?campaign=cp-none", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/knowledge-questions/answer", method: .post, headers: Self.json, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .unprocessableContent)
                #expect(Self.errors(response).map { String($0.prefix { $0 != ":" }) } == ["question_ids", "collection", "question", "answer"], "\(Self.errors(response))")
            }
            let both = #"{"question_ids": [1], "collection": "clinic", "question": "Q?", "answer": "A.", "same_as": 3}"#
            try await client.execute(uri: "/api/knowledge-questions/answer", method: .post, headers: Self.json, body: ByteBuffer(string: both)) { response in
                #expect(Self.errors(response) == ["answer: give answer (the FAQ's answer) or same_as (an existing FAQ row's id), one of them"])
            }
            let missing = #"{"question_ids": [1], "collection": "clinic", "question": "Q?", "same_as": 987654}"#
            try await client.execute(uri: "/api/knowledge-questions/answer", method: .post, headers: Self.json, body: ByteBuffer(string: missing)) { response in
                #expect(response.status == .unprocessableContent && Self.errors(response).first?.hasPrefix("same_as: no FAQ row with id 987654") == true)
            }

            let answer = ["question_ids": ids, "collection": "clinic", "question": "Do you sell gift cards?",
                          "answer": "Yes, gift cards of any amount at the front desk."] as [String: Any]
            try await client.execute(uri: "/api/knowledge-questions/answer", method: .post, headers: Self.json,
                                     body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: answer))) { response in
                #expect(response.status == .ok)
                let body = OutboundAPITests.json(response.body)
                #expect(body["resolved"] as? Int == 2 && (body["document"] as? [String: Any])?["name"] as? String == "answered-questions.csv")
            }
            try await client.execute(uri: "/api/knowledge/clinic/search?q=do%20you%20sell%20gift%20cards&limit=1", method: .get) { response in
                let results = OutboundAPITests.json(response.body)["results"] as? [[String: Any]]
                #expect((results?.first?["chunk"] as? [String: Any])?["text"] as? String == "Yes, gift cards of any amount at the front desk.")
            }
            try await client.execute(uri: "/api/knowledge-questions", method: .get) { response in
                groups = OutboundAPITests.json(response.body)["groups"] as? [[String: Any]] ?? []
            }
            #expect(groups.map { $0["question"] as? String } == ["Can I pay by card?"])
            let last = try #require(groups.first?["question_ids"] as? [Int])
            try await client.execute(uri: "/api/knowledge-questions/dismiss", method: .post, headers: Self.json,
                                     body: ByteBuffer(string: #"{"question_ids": \#(last)}"#)) { response in
                #expect(response.status == .ok && OutboundAPITests.json(response.body)["resolved"] as? Int == 1)
            }
            try await client.execute(uri: "/api/knowledge-questions", method: .get) { response in
                #expect((OutboundAPITests.json(response.body)["groups"] as? [Any])?.isEmpty == true)
            }
            try await client.execute(uri: "/api/stats", method: .get) { response in
                let figure = OutboundAPITests.json(response.body)["open_questions"] as? [String: Any]
                #expect(figure?["numerator"] as? Int == 0 && figure?["denominator"] as? Int == 3)
            }
        }
    }
}
