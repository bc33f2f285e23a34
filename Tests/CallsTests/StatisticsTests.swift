import Dialogue
import Foundation
import GRDB
import Realtime
import Testing
import TestSupport
@testable import Calls

/// `statistics(campaignID:)` on a real store: each figure from the rows that it says it counts.
@Suite struct StatisticsTests {

    /// A call driven through the store to `final`, with its talk time and answers.
    static func call(_ store: CallStore, _ n: Int, campaign: String? = nil, final: CallState, complete: Bool = false, seconds: Int? = nil,
                     answers: [(String, TaskTracker.Status, String?)] = []) async throws {
        var call = CallRecord(outboundId: CallRecord.newID(), callerNumber: "0701234", calleeNumber: "010000000\(n)", purpose: "p", questions: ["q"])
        call.campaignId = campaign
        try await store.insert(call)
        guard final != .queued else { return }
        try await store.transition(id: call.outboundId, to: .dialing)
        if final == .completed { try await store.transition(id: call.outboundId, to: .connected) }
        try await store.transition(id: call.outboundId, to: final)
        let id = call.outboundId
        try await store.sqlWrite { try $0.execute("UPDATE calls SET task_completed = ?, duration_seconds = ? WHERE outbound_id = ?", complete, seconds, id) }
        try await store.saveAnswers(callID: call.outboundId, answers: answers.enumerated().map { i, a in
            TaskTracker.Answer(questionID: "q\(i + 1)", question: a.0, status: a.1, answerText: a.2, answerSummary: a.2, confidence: 1, timesAsked: 1)
        })
    }

    @Test(arguments: StoreBackend.allCases)
    func everyFigureCountsWhatItSays(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let campaign = Campaign(name: "c", callerNumber: "0701234")
        try await store.campaigns.create(campaign)
        try await Self.call(store, 1, campaign: campaign.id, final: .completed, complete: true, seconds: 30,
                      answers: [("Can you attend?", .answered, "yes"), ("Parking?", .answered, "no")])
        try await Self.call(store, 2, final: .completed, seconds: 50, answers: [("Can you attend?", .answered, "no"), ("Parking?", .refused, nil)])
        try await Self.call(store, 3, campaign: campaign.id, final: .busy)
        try await Self.call(store, 4, final: .noAnswer)
        try await Self.call(store, 5, final: .queued)

        let all = try await store.statistics()
        #expect(all.calls.value == 5)
        #expect(all.successRate.value == 25 && all.successRate.numerator == 1 && all.successRate.denominator == 4, "1 of 4 ended calls fully answered")
        #expect(all.successRate.counts.contains("as a percentage of ended calls"))
        #expect(all.averageDurationSeconds.value == 40 && all.averageDurationSeconds.denominator == 2, "talk time of the two answered calls")
        #expect(all.outcomes == ["completed": 2, "busy": 1, "no_answer": 1, "rejected": 0, "failed": 0, "cancelled": 0, "voicemail": 0, "voicemail_left": 0, "screened_out": 0])
        #expect(all.questions.map(\.question) == ["Can you attend?", "Parking?"])
        #expect(all.questions[0].statuses == ["answered": 2] && all.questions[0].yes == 1 && all.questions[0].no == 1)
        #expect(all.questions[1].statuses == ["answered": 1, "refused": 1] && all.questions[1].no == 1)
        #expect(all.callsPerHour.map(\.calls).reduce(0, +) == 4, "attempts started: every call but the queued one")

        let one = try await store.statistics(campaignID: campaign.id)
        #expect(one.calls.value == 2 && one.successRate.value == 50 && one.outcomes["busy"] == 1 && one.questions.count == 2)
        #expect(one.scope == "the calls of campaign \(campaign.id)")
    }
}
