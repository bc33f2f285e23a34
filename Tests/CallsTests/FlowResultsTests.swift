import Analysis
import Dialogue
import Flows
import Foundation
import Testing
import TestSupport
@testable import Calls
@testable import Realtime

/// A flow campaign's results: outcomes and per-field distributions in the statistics, and the
/// export's `outcome` and `fields.<name>` columns (typed in JSON Lines) — from results the local
/// dialogue produced and the store sealed.
@Suite struct FlowResultsTests {
    static let flow = try! JSONDecoder().decode(Flow.self, from: Data("""
        {"start": "attend", "steps": [
          {"id": "attend", "ask": "Will you come?", "field": "attending", "kind": "yes_no", "next": "route"},
          {"id": "route", "branch": [{"field": "attending", "is": "yes", "next": "guests"}], "default": "declined"},
          {"id": "guests", "ask": "How many people?", "field": "guests", "kind": "number", "next": "booked"},
          {"id": "booked", "outcome": "registered"},
          {"id": "declined", "outcome": "declined"}
        ]}
        """.utf8))

    /// A campaign call that ran the flow with `replies`, its result stored.
    static func call(_ store: CallStore, campaign: String, _ n: Int, replies: [String]) async throws -> String {
        var call = CallRecord(outboundId: CallRecord.newID(), callerNumber: "0701234", calleeNumber: "010000000\(n)", purpose: "p", questions: ["Will you come?", "How many people?"])
        call.campaignId = campaign
        try await store.insert(call)
        var context = ConversationContext(purpose: "p", questions: call.questions)
        context.flow = flow
        var dialogue = ScriptedDialogue(context: context)
        _ = dialogue.start()
        for reply in replies { _ = dialogue.caller(said: reply) }
        try await store.saveResult(callID: call.outboundId, result: ConversationResult(tracker: dialogue.tracker, transcript: [], durationSeconds: 10, context: context))
        return call.outboundId
    }

    @Test(arguments: StoreBackend.allCases) func outcomesFieldsAndTheExport(backend: StoreBackend) async throws {
        let store = try await backend.store(cipher: StorageCipher(currentKey: StorageEncryptionTests.keyA))
        let campaign = Campaign(name: "c", callerNumber: "0701234")
        try await store.campaigns.create(campaign)
        let first = try await Self.call(store, campaign: campaign.id, 1, replies: ["Yes.", "Three of us."])
        let second = try await Self.call(store, campaign: campaign.id, 2, replies: ["Yes, sure.", "Five."])
        let third = try await Self.call(store, campaign: campaign.id, 3, replies: ["No, sorry."])
        _ = try await Self.call(store, campaign: campaign.id, 4, replies: ["I'd rather not say."])
        // Analyses as the dispatcher stores them (sealed JSON), for three of the four.
        for (id, success, sentiment, category) in [(first, true, CallAnalysis.Sentiment.positive, "registered"), (second, true, .neutral, "registered"),
                                                    (third, false, .negative, "declined")] {
            let analysis = CallAnalysis(method: .offline, data: .object([:]), success: success, reason: "r", sentiment: sentiment, category: category)
            let json = String(decoding: try JSONEncoder().encode(analysis), as: UTF8.self)
            try await store.sqlWrite { try $0.execute("UPDATE calls SET analysis = ? WHERE outbound_id = ?", store.sealed(json), id) }
        }

        let stats = try await store.statistics(campaignID: campaign.id)
        #expect(stats.flowOutcomes == ["registered": 2, "declined": 2])
        #expect(stats.fields == [
            .init(field: "attending", kind: "yes_no", statuses: ["answered": 3, "refused": 1], values: ["yes": 2, "no": 1], other: 0, mean: nil),
            .init(field: "guests", kind: "number", statuses: ["answered": 2], values: ["3": 1, "5": 1], other: 0, mean: 4),
        ])
        #expect(stats.analyses == .init(analysed: 3, successRate: .init(value: 66.7, counts: "analysed calls their analysis calls a success, as a percentage of analysed calls",
                                                                        numerator: 2, denominator: 3),
                                        sentiment: ["positive": 1, "neutral": 1, "negative": 1], categories: ["registered": 2, "declined": 1]))
        #expect(try await store.statistics().fields == nil, "fields are a campaign's")

        let stored = try #require(try await store.call(id: first))
        #expect(try await store.sqlRead { try $0.scalar(String.self, "SELECT flow_result FROM calls WHERE outbound_id = ?", [.text(first)]) }?.contains("guests") == false,
                "sealed at rest")
        let row = CampaignStore.ResultRow(contact: .init(line: 2, number: "0100000001", variables: [:]), skipReason: nil, call: stored, answers: [], hasRecording: false)
        let csv = CampaignExport(campaign: campaign, questions: stored.questions, fields: ["attending", "guests"], analysed: true, format: .csv)
        #expect(csv.header.suffix(12) == ["outcome", "fields.attending", "fields.guests", "analysis.success", "analysis.category", "analysis.sentiment",
                                          "analysis.reason", "analysis.data", "summary", "recording_url", "outbound_id", "skip_reason"])
        #expect(Array(csv.fields(row).suffix(12).prefix(8)) == ["registered", "true", "3", "true", "registered", "positive", "r", "{}"])
        let jsonl = CampaignExport(campaign: campaign, questions: stored.questions, fields: ["attending", "guests"], analysed: true, format: .jsonl)
        let object = try #require(try JSONSerialization.jsonObject(with: jsonl.page([row])) as? [String: Any])
        #expect(object["outcome"] as? String == "registered")
        let fields = object["fields"] as? [String: Any]
        #expect(fields?["attending"] as? Bool == true && fields?["guests"] as? Int == 3 && object["fields.guests"] == nil, "\(object)")
        #expect((object["analysis"] as? [String: Any])?["sentiment"] as? String == "positive" && object["analysis.sentiment"] == nil)
    }
}
