import Crypto
import Foundation
import Realtime
import Testing
import TestSupport
@testable import Calls

/// The outbox side of webhooks: what is written, when, in which transaction; the signature; the
/// retry verdicts. Delivery to a real receiver, across a restart, is Tests/e2e/suite-webhooks.sh.
@Suite struct WebhookOutboxTests {
    /// PROTOCOLS-2 §2's test vector.
    @Test func signsAsStandardWebhooksSays() throws {
        let key = try #require(WebhookSignature.key(fromSecret: "whsec_dm9pY2VicmlkZ2UtZGVtby1rZXktMDEyMzQ1Njc4OSE="))
        let body = #"{"type":"call.completed","timestamp":"2026-01-01T00:00:00Z","data":{"call_id":"c_42"}}"#
        #expect(WebhookSignature.sign(id: "msg_vb_0001", timestamp: 1_767_225_600, body: Array(body.utf8), key: key)
            == "v1,K5Xxyw+cUiq5CGTLFbLohOfw1CdAeJR1NIxRpxlxN9I=")
        #expect(WebhookSignature.sign(id: "msg_vb_0001", timestamp: 1_767_225_601, body: Array(body.utf8), key: key)
            != "v1,K5Xxyw+cUiq5CGTLFbLohOfw1CdAeJR1NIxRpxlxN9I=")
    }

    @Test func secretsAreCheckedAndGeneratedInTheStandardForm() {
        #expect(WebhookSignature.key(fromSecret: "dm9pY2VicmlkZ2UtZGVtby1rZXktMDEyMzQ1Njc4OSE=") == nil)   // no whsec_
        #expect(WebhookSignature.key(fromSecret: "whsec_c2hvcnQ=") == nil)                                // 5 bytes
        #expect(WebhookSignature.key(fromSecret: "whsec_not base64!") == nil)
        #expect(WebhookSignature.key(fromSecret: "whsec_dm9pY2VicmlkZ2UtZGVtby1rZXktMDEyMzQ1Njc4OSE") != nil)   // unpadded
        let fresh = WebhookSignature.newSecret()
        #expect(fresh.hasPrefix("whsec_") && WebhookSignature.key(fromSecret: fresh) != nil && fresh != WebhookSignature.newSecret())
        #expect(WebhookEndpoint.problem(url: "ftp://x", secret: nil, events: [])?.contains("http") == true)
        #expect(WebhookEndpoint.problem(url: "https://crm.example.com/h", secret: nil, events: ["call.done"])?.contains("unknown event 'call.done'") == true)
        #expect(WebhookEndpoint.problem(url: "https://crm.example.com/h", secret: fresh, events: ["call.failed"]) == nil)
    }

    @Test func retriesNetworkErrorsTimeoutsAnd5xxButNotARefusal() {
        let policy = WebhookRetryPolicy(schedule: [5, 300], jitter: 0.2)
        let noJitter: (ClosedRange<Double>) -> Double = { _ in 1 }
        #expect(policy.verdict(attempt: 1, status: 204) == .delivered)
        for status in [nil, 408, 429, 500, 502, 503] as [Int?] {
            #expect(policy.verdict(attempt: 1, status: status, random: noJitter) == .retry(after: 5), "\(String(describing: status))")
        }
        #expect(policy.verdict(attempt: 2, status: 500, random: noJitter) == .retry(after: 300))
        guard case .giveUp = policy.verdict(attempt: 3, status: 500) else { Issue.record("the schedule ran out"); return }
        for status in [301, 400, 401, 404, 422] {
            guard case .giveUp = policy.verdict(attempt: 1, status: status) else { Issue.record("\(status) is not retried"); continue }
        }
        #expect(policy.verdict(attempt: 1, status: 410) == .disableEndpoint)
        #expect(policy.verdict(attempt: 1, status: 429, retryAfter: "120", random: noJitter) == .retry(after: 120))
        if case .retry(let after) = policy.verdict(attempt: 1, status: 500, random: { $0.upperBound }) { #expect(abs(after - 6) < 1e-9) }
        // The default schedule keeps trying for more than a day.
        #expect(WebhookRetryPolicy.standardSchedule.reduce(0, +) * 0.8 >= 24 * 3600)
    }

    static func storeWithEndpoints(on backend: StoreBackend) async throws -> (CallStore, all: WebhookEndpoint, failures: WebhookEndpoint) {
        let store = try await backend.store()
        let all = WebhookEndpoint(url: "http://127.0.0.1:9/all")
        let failures = WebhookEndpoint(url: "http://127.0.0.1:9/failures", events: ["call.failed"])
        try await store.webhooks.create(all)
        try await store.webhooks.create(failures)
        try await store.webhooks.create(WebhookEndpoint(url: "http://127.0.0.1:9/off", enabled: false))
        return (store, all, failures)
    }

    @Test(arguments: StoreBackend.allCases)
    func aCallsFinalStateWritesItsDeliveriesWithItsAnswers(backend: StoreBackend) async throws {
        let (store, all, failures) = try await Self.storeWithEndpoints(on: backend)
        let call = CallStoreTests.sampleCall()
        try await store.insert(call)
        try await store.transition(id: call.outboundId, to: .dialing)
        try await store.transition(id: call.outboundId, to: .connected)
        #expect(try await store.webhooks.deliveries(callID: call.outboundId).isEmpty, "only a final state is announced")
        try await store.saveAnswers(callID: call.outboundId, answers: [.init(questionID: "q1", question: "Can you attend?", status: .answered, answerText: "yes I can",
                                                                      answerSummary: "yes", confidence: 0.9, timesAsked: 1)])
        try await store.transition(id: call.outboundId, to: .completed)
        let deliveries = try await store.webhooks.deliveries(callID: call.outboundId)
        #expect(deliveries.map(\.endpointId) == [all.id], "the failures-only and the disabled endpoints get nothing")
        let delivery = try #require(deliveries.first)
        #expect(delivery.state == .pending && delivery.eventType == "call.completed" && delivery.id.hasPrefix("msg_"))
        let body = try #require(try JSONSerialization.jsonObject(with: Data(delivery.payload.utf8)) as? [String: Any])
        let data = try #require(body["data"] as? [String: Any])
        #expect(body["type"] as? String == "call.completed" && (body["timestamp"] as? String)?.hasSuffix("Z") == true)
        #expect(data["outbound_id"] as? String == call.outboundId && data["state"] as? String == "completed")
        let answers = try #require(data["answers"] as? [[String: Any]])
        #expect(answers.first?["answer"] as? String == "yes" && answers.first?["status"] as? String == "answered")
        _ = failures
    }

    @Test(arguments: StoreBackend.allCases)
    func aRetriedAttemptWaitsForTheFinalOutcome(backend: StoreBackend) async throws {
        let (store, all, failures) = try await Self.storeWithEndpoints(on: backend)
        let call = CallStoreTests.sampleCall()
        try await store.insert(call)
        try await store.transition(id: call.outboundId, to: .dialing)
        try await store.endAttempt(id: call.outboundId, in: .busy, reason: "busy", retryAt: Date().addingTimeInterval(300))
        #expect(try await store.call(id: call.outboundId)?.state == .queued)
        #expect(try await store.webhooks.deliveries(callID: call.outboundId).isEmpty, "a retry follows: nothing is announced yet")
        try await store.transition(id: call.outboundId, to: .dialing)
        try await store.endAttempt(id: call.outboundId, in: .noAnswer, reason: "no_answer", retryAt: nil)
        let deliveries = try await store.webhooks.deliveries(callID: call.outboundId)
        #expect(Set(deliveries.map(\.endpointId)) == [all.id, failures.id] && deliveries.allSatisfy { $0.eventType == "call.failed" })
        #expect(deliveries.allSatisfy { $0.payload.contains(#""state":"no_answer""#) && $0.payload.contains(#""attempt_count":2"#) })
        #expect(Set(deliveries.map(\.id)).count == 2, "each delivery has its own webhook-id")
    }

    @Test func finalStatesMapToTheirEvents() {
        #expect(WebhookEventType(finalState: .completed) == .callCompleted && WebhookEventType(finalState: .cancelled) == .callCancelled)
        #expect([CallState.voicemail, .voicemailLeft].map(WebhookEventType.init(finalState:)) == [.callVoicemail, .callVoicemail])
        #expect([CallState.failed, .busy, .noAnswer, .rejected].map(WebhookEventType.init(finalState:)).allSatisfy { $0 == .callFailed })
    }

    @Test(arguments: StoreBackend.allCases)
    func aRefusedTransitionWritesNothing(backend: StoreBackend) async throws {
        let (store, _, _) = try await Self.storeWithEndpoints(on: backend)
        let call = CallStoreTests.sampleCall()
        try await store.insert(call)
        await #expect(throws: CallStore.Failure.self) { try await store.transition(id: call.outboundId, to: .completed) }   // queued → completed is not allowed
        #expect(try await store.webhooks.deliveries(callID: call.outboundId).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func aCampaignsEndIsAnnounced(backend: StoreBackend) async throws {
        let (store, all, _) = try await Self.storeWithEndpoints(on: backend)
        let campaign = Campaign(name: "Tuesday reminders", callerNumber: "0701")
        try await store.campaigns.create(campaign)
        try await store.campaigns.transition(campaignID: campaign.id, to: .running)
        try await store.campaigns.transition(campaignID: campaign.id, to: .cancelled)
        let delivery = try #require(try await store.webhooks.deliveries(endpointID: all.id).first)
        #expect(delivery.eventType == "campaign.cancelled" && delivery.campaignId == campaign.id && delivery.payload.contains("Tuesday reminders"))
    }

    @Test(arguments: StoreBackend.allCases)
    func attemptsAreKeptAndTheirVerdictsApplied(backend: StoreBackend) async throws {
        let (store, all, _) = try await Self.storeWithEndpoints(on: backend)
        let call = CallStoreTests.sampleCall()
        try await store.insert(call)
        try await store.transition(id: call.outboundId, to: .cancelled)
        let now = Date()
        let claimed = try await store.webhooks.claimDue(now: now, limit: 10, lease: 60)
        #expect(claimed.map(\.1.id) == [all.id])
        #expect(try await store.webhooks.claimDue(now: now.addingTimeInterval(1), limit: 10, lease: 60).isEmpty, "a claimed delivery is leased")
        #expect(try await store.webhooks.claimDue(now: now.addingTimeInterval(61), limit: 10, lease: 60).count == 1, "an abandoned lease runs out")
        let id = claimed[0].0.id
        try await store.webhooks.record(.init(deliveryId: id, attemptedAt: now, status: 503, error: nil, durationMs: 12), verdict: .retry(after: 5))
        try await store.webhooks.record(.init(deliveryId: id, attemptedAt: now, status: nil, error: "connection refused", durationMs: 1), verdict: .retry(after: 5))
        try await store.webhooks.record(.init(deliveryId: id, attemptedAt: now, status: 200, error: nil, durationMs: 3), verdict: .delivered)
        let delivered = try #require(try await store.webhooks.delivery(id: id))
        #expect(delivered.state == .delivered && delivered.attemptCount == 3 && delivered.lastStatus == 200)
        #expect(try await store.webhooks.attempts(deliveryIDs: [id])[id]?.map(\.status) == [503, nil, 200])
        #expect(try await store.webhooks.replay(id: id).state == .pending)
        #expect(try await store.webhooks.claimDue(limit: 10, lease: 60).map(\.0.id) == [id], "a replay is due at once, with the same id")
        try await store.webhooks.record(.init(deliveryId: id, attemptedAt: now, status: 410, error: nil, durationMs: 3), verdict: .disableEndpoint)
        let disabled = try await store.webhooks.endpoint(id: all.id)
        #expect(disabled?.enabled == false && disabled?.disabledReason?.contains("410") == true)
        // A turned-off endpoint's pending deliveries wait; turned on again, they go out.
        _ = try await store.webhooks.replay(id: id)
        #expect(try await store.webhooks.claimDue(limit: 10, lease: 60).isEmpty)
        _ = try await store.webhooks.update(id: all.id) { $0.enabled = true }
        #expect(try await store.webhooks.claimDue(limit: 10, lease: 60).map(\.0.id) == [id])
    }

    @Test(arguments: StoreBackend.allCases)
    func configuredEndpointsAreSyncedAndProtected(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let crm = WebhookEndpoint(id: "crm", url: "https://crm.example.com/h", fromConfig: true)
        try await store.webhooks.syncConfigured([crm, WebhookEndpoint(id: "old", url: "https://old.example.com/h")])
        try await store.webhooks.syncConfigured([crm])
        let removed = try await store.webhooks.endpoint(id: "old")
        #expect(removed?.enabled == false && removed?.disabledReason == "removed from the configuration file")
        await #expect(throws: WebhookStore.Failure.fromConfig("crm")) { try await store.webhooks.update(id: "crm") { $0.enabled = false } }
        await #expect(throws: WebhookStore.Failure.fromConfig("crm")) { try await store.webhooks.delete(id: "crm") }
    }
}
