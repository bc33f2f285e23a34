import Bridge
import Foundation
import Logging
import Testing
import TestSupport
@testable import Calls
import Realtime

/// A campaign's ticks with the clock in the test's hands: a real store (a SQLite file, or
/// PostgreSQL) and call manager that is not dialing, so every queued call stays where the tick put it.
@Suite struct CampaignTickTests {
    static func manager(maxConcurrentCalls: Int = 50, campaignCallsPerMinute: Int = 6000, on backend: StoreBackend) async throws -> (CallManager, CallStore) {
        let store = try await backend.store()
        var settings = CallManager.Settings(gateway: SIPURI("sip:127.0.0.1:5999")!)
        settings.maxConcurrentCalls = maxConcurrentCalls
        settings.campaignCallsPerMinute = campaignCallsPerMinute
        settings.engineMode = "echo"
        let ua = try SIPUserAgent(configuration: .init(), logger: Logger(label: "test"))
        let manager = CallManager(settings: settings, store: store, userAgent: ua, scheduler: .init(), engines: { _ in EchoEngine(sampleRate: 8000) },
                                  logger: Logger(label: "test"))
        return (manager, store)
    }

    /// A running campaign of `contacts` numbers over a one-question template.
    static func campaign(_ manager: CallManager, _ store: CallStore, contacts: Int, perMinute: Int, concurrent: Int, window: CallingWindow? = nil,
                         template: String = "t", firstNumber: Int = 0) async throws -> Campaign {
        _ = try await store.createTemplate(CallTemplate(name: template, purpose: "a visit for {name}", questions: ["Is {name} home?"]))
        let draft = Campaign(name: "c", callerNumber: "0701234567", window: window, callsPerMinute: perMinute, maxConcurrentCalls: concurrent)
        let campaign = try await manager.createCampaign(draft, template: template)
        let csv = "phone,name\n" + (firstNumber..<(firstNumber + contacts)).map { String(format: "0105555%04d,N%d", $0, $0) }.joined(separator: "\n")
        let report = try await manager.uploadContacts(campaignID: campaign.id, csv: Data(csv.utf8), phoneColumn: nil)
        #expect(report.accepted == contacts && report.skipped.isEmpty)
        return try await manager.setCampaign(campaign.id, to: .running)
    }

    static let monday = ISO8601DateFormatter().date(from: "2026-11-23T01:00:00Z")!   // 10:00 in Seoul

    @Test(arguments: StoreBackend.allCases)
    func callsAreQueuedAtTheConfiguredRate(backend: StoreBackend) async throws {
        let (manager, store) = try await Self.manager(on: backend)
        let campaign = try await Self.campaign(manager, store, contacts: 20, perMinute: 6, concurrent: 20)
        var queued: [Int] = []
        for second in stride(from: 0, through: 60, by: 5) {
            await manager.campaignTick(now: Self.monday, monotonic: Double(second))
            queued.append(try await store.campaigns.progress(campaignID: campaign.id).calls["queued"] ?? 0)
        }
        #expect(queued == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7], "one every 10 s: \(queued)")
        let call = try #require(try await store.calls(inStates: [.queued]).first)
        #expect(call.campaignId == campaign.id && call.purpose == "a visit for N0" && call.retryOn == "no_answer,busy" && call.retryInterval == 300)
    }

    /// Issue 36: campaigns spend `outbound.campaign_calls_per_minute` together — two campaigns at
    /// 600 a minute each, on a budget of 60 a minute, dial one a second between them.
    @Test func campaignsShareOneDialBudget() async throws {
        let (manager, store) = try await Self.manager(campaignCallsPerMinute: 60, on: .sqlite)
        let a = try await Self.campaign(manager, store, contacts: 30, perMinute: 600, concurrent: 30, template: "a")
        let b = try await Self.campaign(manager, store, contacts: 30, perMinute: 600, concurrent: 30, template: "b", firstNumber: 100)
        for tick in 0...100 { await manager.campaignTick(now: Self.monday, monotonic: Double(tick) / 10) }   // 10 s of 100 ms ticks
        let queued = (try await store.campaigns.progress(campaignID: a.id).calls["queued"] ?? 0) + (try await store.campaigns.progress(campaignID: b.id).calls["queued"] ?? 0)
        #expect(queued == 11, "one a second in all (and the first at once), not 10 a second each: \(queued)")
    }

    /// A second upload to a draft adds only the numbers not in it yet; the others come back as
    /// skipped, and the campaign's counts and columns add up.
    @Test(arguments: StoreBackend.allCases)
    func aSecondUploadSkipsNumbersAlreadyInTheCampaign(backend: StoreBackend) async throws {
        let (manager, store) = try await Self.manager(on: backend)
        _ = try await store.createTemplate(CallTemplate(name: "t", purpose: "a visit for {name}", questions: ["Is {name} home?"]))
        let campaign = try await manager.createCampaign(Campaign(name: "c", callerNumber: "0701234567"), template: "t")
        _ = try await manager.uploadContacts(campaignID: campaign.id, csv: Data("phone,name\n01055550001,A\n01055550002,B".utf8), phoneColumn: nil)
        let second = try await manager.uploadContacts(campaignID: campaign.id, csv: Data("phone,name,floor\n01055550002,B,3\n01055550003,C,4".utf8), phoneColumn: nil)
        #expect(second.accepted == 1 && second.skipped.map(\.reason) == ["already in this campaign"])
        let stored = try #require(try await store.campaigns.campaign(id: campaign.id))
        #expect(stored.contacts == 3 && stored.skipped == 1 && stored.columns == ["name", "floor"])
        #expect(try await store.campaigns.problems(campaignID: campaign.id).map(\.value) == ["01055550002"])
    }

    /// The pause is checked in the claim's own transaction: a tick that read the campaign as
    /// running before an operator paused it claims nothing after the pause.
    @Test(arguments: StoreBackend.allCases)
    func aPausedCampaignHasNoContactClaimed(backend: StoreBackend) async throws {
        let (manager, store) = try await Self.manager(on: backend)
        let campaign = try await Self.campaign(manager, store, contacts: 3, perMinute: 6000, concurrent: 3)
        _ = try await store.campaigns.transition(campaignID: campaign.id, to: .paused)
        let claimed = try await store.campaigns.claimNextContact(campaignID: campaign.id) { contact in
            .success(CallRecord(outboundId: CallRecord.newID(), callerNumber: "0701234567", calleeNumber: contact.number, purpose: "p", questions: ["q"]))
        }
        #expect(claimed == nil)
        #expect(try await store.campaigns.progress(campaignID: campaign.id).waiting == 3)
    }

    @Test(arguments: StoreBackend.allCases)
    func neverMoreOpenThanTheCampaignsConcurrency(backend: StoreBackend) async throws {
        let (manager, store) = try await Self.manager(on: backend)
        let campaign = try await Self.campaign(manager, store, contacts: 10, perMinute: 6000, concurrent: 3)
        for tick in 0..<50 { await manager.campaignTick(now: Self.monday, monotonic: Double(tick)) }
        #expect(try await store.campaigns.progress(campaignID: campaign.id).calls["queued"] == 3)
        // One ends: one more is queued.
        let first = try #require(try await store.calls(inStates: [.queued]).first)
        try await store.transition(id: first.outboundId, to: .cancelled, reason: "test")
        await manager.campaignTick(now: Self.monday, monotonic: 100)
        #expect(try await store.campaigns.progress(campaignID: campaign.id).calls["queued"] == 3)
        #expect(try await store.campaigns.progress(campaignID: campaign.id).waiting == 6)
    }

    @Test(arguments: StoreBackend.allCases)
    func outsideItsWindowOrPausedNothingIsQueuedOrDialed(backend: StoreBackend) async throws {
        let (manager, store) = try await Self.manager(on: backend)
        let seoul = CallingWindow(timeZone: "Asia/Seoul", days: [1, 2, 3, 4, 5], start: "09:00", end: "18:00")
        let campaign = try await Self.campaign(manager, store, contacts: 5, perMinute: 6000, concurrent: 2, window: seoul)
        let saturday = ISO8601DateFormatter().date(from: "2026-11-28T01:00:00Z")!
        await manager.campaignTick(now: saturday, monotonic: 0)
        #expect(try await store.campaigns.progress(campaignID: campaign.id).calls.isEmpty)
        await manager.campaignTick(now: Self.monday, monotonic: 1)
        #expect(try await store.campaigns.progress(campaignID: campaign.id).calls["queued"] == 2)
        #expect(await manager.dueCalls().count == 2)
        // Paused: its queued calls wait; out of its window likewise.
        _ = try await manager.setCampaign(campaign.id, to: .paused)
        #expect(await manager.dueCalls().isEmpty)
        _ = try await manager.setCampaign(campaign.id, to: .running)
        await manager.campaignTick(now: saturday, monotonic: 2)
        #expect(await manager.dueCalls().isEmpty)
        #expect(try await store.campaigns.progress(campaignID: campaign.id).calls["queued"] == 2)
    }

    @Test(arguments: StoreBackend.allCases)
    func itCompletesWhenEveryContactsCallHasEnded(backend: StoreBackend) async throws {
        let (manager, store) = try await Self.manager(on: backend)
        let campaign = try await Self.campaign(manager, store, contacts: 2, perMinute: 6000, concurrent: 5)
        await manager.campaignTick(now: Self.monday, monotonic: 0)
        await manager.campaignTick(now: Self.monday, monotonic: 1)
        #expect(try await store.campaigns.campaign(id: campaign.id)?.state == .running)
        for call in try await store.calls(inStates: [.queued]) { try await store.transition(id: call.outboundId, to: .cancelled, reason: "test") }
        await manager.campaignTick(now: Self.monday, monotonic: 2)
        let done = try #require(try await store.campaigns.campaign(id: campaign.id))
        #expect(done.state == .completed && done.endedAt != nil)
        let results = try await store.campaigns.results(campaignID: campaign.id)
        #expect(results.rows.map(\.contact.number) == ["01055550000", "01055550001"] && results.rows.allSatisfy { $0.call?.state == .cancelled })
        let contacts = try await store.campaigns.contacts(campaignID: campaign.id, state: "cancelled")
        #expect(contacts.total == 2 && contacts.contacts.map(\.variables) == [["name": "N0"], ["name": "N1"]])
    }

    @Test(arguments: StoreBackend.allCases)
    func aContactWhoseNumberHasAnOpenCallWaitsForItToEnd(backend: StoreBackend) async throws {
        let (manager, store) = try await Self.manager(on: backend)
        let single = try await manager.create(OutboundCallRequest(callerNumber: "0701234567", calleeNumber: "010-5555-0000", purpose: "p", questions: ["q?"]))
        let campaign = try await Self.campaign(manager, store, contacts: 3, perMinute: 6000, concurrent: 5)
        for tick in 0..<5 { await manager.campaignTick(now: Self.monday, monotonic: Double(tick)) }
        let queued = try await store.calls(inStates: [.queued]).filter { $0.campaignId == campaign.id }.map(\.calleeNumber).sorted()
        #expect(queued == ["01055550001", "01055550002"], "the first contact's number is already being called")
        #expect(try await store.campaigns.progress(campaignID: campaign.id).waiting == 1)
        try await store.transition(id: single.outboundId, to: .cancelled, reason: "test")
        await manager.campaignTick(now: Self.monday, monotonic: 10)
        #expect(try await store.campaigns.progress(campaignID: campaign.id).waiting == 0, "its turn comes once that call ended")
    }

    @Test(arguments: StoreBackend.allCases)
    func aContactListedAsDoNotCallAfterTheUploadIsSkippedWhenItsTurnComes(backend: StoreBackend) async throws {
        let (manager, store) = try await Self.manager(on: backend)
        let campaign = try await Self.campaign(manager, store, contacts: 3, perMinute: 6000, concurrent: 5)
        try await store.doNotCall.add([.init(number: "01055550000")])
        for tick in 0..<5 { await manager.campaignTick(now: Self.monday, monotonic: Double(tick)) }
        let progress = try await store.campaigns.progress(campaignID: campaign.id)
        #expect(progress.calls["queued"] == 2 && progress.skippedAtDial == 1 && progress.waiting == 0)
    }
}
