import Foundation
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// A campaign run whole, in virtual time: its contacts called by the local engine, each answered
/// by the simulated callee as its row scripts, never more at once than the campaign allows, and
/// the results in the export.
@Suite(.serialized, .tags(.virtualTime)) struct CampaignCallTests {
    @Test func aCampaignCallsEveryContactAndCompletes() async throws {
        _ = try await VirtualCallHarness.run(tweak: { $0.maxConcurrentCalls = 5 }) { manager, store, clock in
            _ = try await store.createTemplate(CallTemplate(name: "attend", purpose: "{name}'s meeting tomorrow", questions: ["Can you attend, {name}?"]))
            let draft = Campaign(name: "tomorrow", callerNumber: "070-1234-5678", callerDisplayName: "ABC Company", callsPerMinute: 600, maxConcurrentCalls: 2,
                                 retry: .init(on: [], maxRetries: 0, delaySeconds: 0))
            let campaign = try await manager.createCampaign(draft, template: "attend")
            let csv = """
                phone,name,simulated_answers
                010-7000-0001,Anna,"Yes, I can attend."
                010-7000-0002,Ben,"No, I cannot come."
                010-7000-0003,Cleo,<busy>
                010-7000-0004,Dan,<hangup>
                """
            let report = try await manager.uploadContacts(campaignID: campaign.id, csv: Data(csv.utf8), phoneColumn: "phone")
            #expect(report.accepted == 4)
            _ = try await manager.setCampaign(campaign.id, to: .running)
            var mostOpen = 0
            let deadline = clock.now.advanced(by: .seconds(120))
            while clock.now < deadline, try await store.campaigns.campaign(id: campaign.id)?.state == .running {
                mostOpen = await max(mostOpen, try store.campaigns.progress(campaignID: campaign.id).live)
                try await clock.sleep(for: .milliseconds(50))
            }
            #expect(try await store.campaigns.campaign(id: campaign.id)?.state == .completed)
            #expect(mostOpen <= 2 && mostOpen >= 1, "at most the campaign's 2 at once (saw \(mostOpen))")
            var rows: [CampaignStore.ResultRow] = []
            var after: Int64? = 0
            while let from = after { let page = try await store.campaigns.results(campaignID: campaign.id, after: from, pageSize: 3); rows += page.rows; after = page.nextAfter }
            #expect(rows.map(\.contact.variables["name"]) == ["Anna", "Ben", "Cleo", "Dan"])
            #expect(rows.map { $0.call?.state } == [.completed, .completed, .busy, .completed])
            #expect(rows.map { $0.answers.first?.answerSummary } == ["yes", "no", nil, nil])
            #expect(rows.allSatisfy { $0.call?.attemptCount == 1 }, "retries off: one attempt each")
        }
    }
}
