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
        #expect(try await store.doNotCall.add([.init(number: "01012345678", reason: "asked")]) == 1)
        #expect(try await store.doNotCall.add([.init(number: "01012345678"), .init(number: "0212345678")]) == 1)
        var call = CallRecord(outboundId: CallRecord.newID(), callerNumber: "0701234", calleeNumber: "01012345678", purpose: "p", questions: ["q"], maxDuration: 60)
        call.state = .queued
        await #expect(throws: CallStore.Failure.doNotCall(number: "01012345678")) { try await store.insert(call) }
        #expect(try await store.page().total == 0)
        var inbound = call   // a listed number may still call in
        inbound.outboundId = CallRecord.newID(direction: .inbound)
        inbound.direction = .inbound
        inbound.state = .connected
        try await store.insert(inbound)
        #expect(try await store.doNotCall.remove("01012345678"))
        #expect(try await store.doNotCall.contains("01012345678") == false)
        #expect(try await store.doNotCall.remove("01012345678") == false)
    }

    /// Issue 36: one number, every spelling — the list and the one-open-call rule compare E.164.
    @Test(arguments: StoreBackend.allCases)
    func anotherSpellingOfAListedNumberIsStillListed(backend: StoreBackend) async throws {
        let store = try await backend.store()
        #expect(try await store.doNotCall.add([.init(number: "+821012345678")]) == 1)
        #expect(try await store.doNotCall.add([.init(number: "010-1234-5678")]) == 0, "the same number, already listed")
        for spelling in ["01012345678", "821012345678", "+8201012345678", "0082 10 1234 5678"] {
            var call = CallRecord(outboundId: CallRecord.newID(), callerNumber: "0701234", calleeNumber: spelling, purpose: "p", questions: ["q"], maxDuration: 60)
            call.state = .queued
            await #expect(throws: CallStore.Failure.doNotCall(number: spelling)) { try await store.insert(call) }
        }
        #expect(try await store.doNotCall.listed(among: ["821012345678", "01099998888"]) == ["821012345678"])
        // One open call per number, whatever the spelling.
        var first = CallRecord(outboundId: CallRecord.newID(), callerNumber: "0701234", calleeNumber: "010-2222-3333", purpose: "p", questions: ["q"], maxDuration: 60)
        first.state = .queued
        try await store.insert(first, onlyIfCalleeFree: true)
        var second = first
        second.outboundId = CallRecord.newID()
        second.calleeNumber = "+82 10 2222 3333"
        await #expect(throws: CallStore.Failure.calleeBusy(number: "+82 10 2222 3333", existing: first.outboundId)) {
            try await store.insert(second, onlyIfCalleeFree: true)
        }
        #expect(try await store.doNotCall.remove("82-10-1234-5678"), "removed by another spelling")
        #expect(try await store.doNotCall.contains("01012345678") == false)
    }

    /// Rows from before the canonical column are filled when the store opens (the migration).
    @Test func rowsFromBeforeAreGivenTheirCanonicalFormOnOpen() async throws {
        let path = CallStoreTests.temporaryPath()
        let store = try CallStore(path: path)
        try await store.doNotCall.add([.init(number: "01012345678")])
        try await store.sqlWrite { try $0.execute("UPDATE do_not_call SET canonical = NULL") }
        #expect(try await store.doNotCall.contains("+821012345678") == false, "control: without its canonical form the row is not found")
        try await store.close()
        let reopened = try CallStore(path: path)
        #expect(try await reopened.doNotCall.contains("+821012345678"))
    }

    @Test func numbersReadAsE164() {
        let korea = NumberPlan.korea
        for spelling in ["01012345678", "010-1234-5678", "821012345678", "+821012345678", "+82 010 1234 5678", "0082-10-1234-5678", "00182 10 1234 5678"] {
            #expect(korea.canonical(spelling) == "+821012345678", "\(spelling)")
        }
        #expect(korea.canonical("02-123-4567") == "+8221234567" && korea.canonical("1588-1234") == "+8215881234")
        #expect(korea.canonical("+1 (555) 010-0099") == "+15550100099" && korea.canonical("+44 (0)20 7946 0000") == "+442079460000")
        #expect(korea.canonical("12") == nil && korea.canonical("010-CALL-NOW") == nil && korea.canonical("") == nil)
        let us = NumberPlan(defaultCountry: "us")!
        #expect(us.canonical("(555) 010-0099") == "+15550100099" && us.canonical("1 555 010 0099") == "+15550100099")
        #expect(us.canonical("011 82 10 1234 5678") == "+821012345678")
        #expect(NumberPlan(defaultCountry: "XX") == nil)
    }

    /// Review 2, finding 6: spellings that reached the dialler past a listed +821012345678.
    @Test func carrierPrefixesAndATrunkZeroAfterTheCountryCodeAreOneNumber() {
        let korea = NumberPlan.korea
        for spelling in ["82 010 1234 5678", "8201012345678", "008 82 10 1234 5678", "00345 82 10 1234 5678", "00727-82-10-1234-5678",
                         "00700 82 10 1234 5678", "00766 82 010 1234 5678", "+0082 10 1234 5678", "+00 82 10 1234 5678", "+001 82 10 1234 5678",
                         "0082 010 1234 5678"] {
            #expect(korea.canonical(spelling) == "+821012345678", "\(spelling)")
        }
        // 008 and 00 both fit "0082…": the one a calling code follows is the prefix.
        #expect(korea.canonical("0082 2 123 4567") == "+8221234567")
        #expect(korea.canonical("008 1 555 010 0099") == "+15550100099")
        // National numbers are untouched by the new rules.
        #expect(korea.canonical("010-8200-1234") == "+821082001234" && korea.canonical("031-820-1234") == "+82318201234")
    }

    @Test func aNumberListedWhileItsCallWaitsIsNeverDialed() async throws {
        try await CallHarness.run { manager, store, _ in
            var request = CallHarness.seedRequest(callee: "010-5555-0001")
            request.scheduledAt = Date().addingTimeInterval(1.5)
            let id = try await manager.create(request).outboundId
            try await store.doNotCall.add([.init(number: "01055550001", reason: "asked during the campaign")])
            let call = try await CallHarness.waitFor(store, id, timeout: .seconds(20)) { $0.state.isTerminal }
            #expect(call.state == .cancelled && call.failureReason == "do_not_call")
            #expect(call.attemptCount == 0 && call.callId == nil, "no INVITE was sent")
            await #expect(throws: CallManager.Failure.doNotCall("01055550001")) { try await manager.create(CallHarness.seedRequest(callee: "010 5555 0001")) }
        }
    }
}
