import Foundation
import Testing
import TestSupport
@testable import Calls

/// Seed 000 §11: a number on the do-not-call list is never dialed — refused when queued, and
/// when it was listed after the call was queued, cancelled at dial time without an INVITE.
@Suite(.serialized) struct DoNotCallTests {
    @Test(arguments: StoreBackend.allCases)
    func theStoreRefusesAListedNumberInTheSameTransactionAsTheInsert(backend: StoreBackend) async throws {
        let store = try await backend.store()
        #expect(try await store.addToDoNotCallList([.init(number: "01012345678", reason: "asked")]) == 1)
        #expect(try await store.addToDoNotCallList([.init(number: "01012345678"), .init(number: "0212345678")]) == 1)
        var call = CallRecord(outboundId: CallRecord.newID(), callerNumber: "0701234", calleeNumber: "01012345678", purpose: "p", questions: ["q"], maxDuration: 60)
        call.state = .queued
        await #expect(throws: CallStore.Failure.doNotCall(number: "01012345678")) { try await store.insert(call) }
        #expect(try await store.page().total == 0)
        var inbound = call   // a listed number may still call in
        inbound.outboundId = CallRecord.newID(direction: .inbound)
        inbound.direction = .inbound
        inbound.state = .connected
        try await store.insert(inbound)
        #expect(try await store.removeFromDoNotCallList("01012345678"))
        #expect(try await store.isOnDoNotCallList("01012345678") == false)
        #expect(try await store.removeFromDoNotCallList("01012345678") == false)
    }

    @Test func aNumberListedWhileItsCallWaitsIsNeverDialed() async throws {
        try await CallHarness.run(rtpBase: 46000) { manager, store, _ in
            var request = CallHarness.seedRequest(callee: "010-5555-0001")
            request.scheduledAt = Date().addingTimeInterval(1.5)
            let id = try await manager.create(request).outboundId
            try await store.addToDoNotCallList([.init(number: "01055550001", reason: "asked during the campaign")])
            let call = try await CallHarness.waitFor(store, id, timeout: .seconds(20)) { $0.state.isTerminal }
            #expect(call.state == .cancelled && call.failureReason == "do_not_call")
            #expect(call.attemptCount == 0 && call.callId == nil, "no INVITE was sent")
            await #expect(throws: CallManager.Failure.doNotCall("01055550001")) { try await manager.create(CallHarness.seedRequest(callee: "010 5555 0001")) }
        }
    }
}
