import Foundation
import Realtime
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// The same menu over real SIP and RTP on 127.0.0.1 in real time: the agent's key goes out as an
/// RFC 4733 event (the simulated callee's answer offered telephone-event), and the callee goes on
/// only once it received it.
@Suite(.serialized, .tags(.realTimeCalls)) struct PhoneMenuSIPTests {
    @Test func theKeyGoesOutAsAnRFC4733Event() async throws {
        try await CallHarness.run { manager, store, _ in
            // The menu waits for the agent's greeting to be over: heard over it, in real time, its
            // words are the recognizer's luck (the virtual-time tests take that case).
            let script = ["<ivr 2 <pause 7000> For billing, press 1. For deliveries, press 2.>", "<pause 1000> Hello, deliveries.", "Yes, Friday is fine."]
            let id = try await manager.create(PhoneMenuCallTests.request(script, purpose: "your delivery", question: "Can we deliver on Friday?",
                                                                        callee: "0109877811")).outboundId
            let call = try await CallHarness.waitFor(store, id, timeout: .seconds(90)) { $0.state.isTerminal }
            let said = try await store.transcript(callID: id).map { "\($0.entry.speaker): \($0.entry.text)" }
            #expect(call.state == .completed && call.failureReason == nil, "\(call.state) \(call.failureReason ?? ""): \(said)")
            let report = try #require(try await store.report(callID: id))
            #expect(report.keysSent?.map(\.key) == ["2"] && report.keysSent?.map(\.how) == [.rfc4733], "\(String(describing: report.keysSent))")
            #expect(try await store.answers(callID: id).first?.status == .answered, "through the menu to the person: \(said)")
        }
    }
}
