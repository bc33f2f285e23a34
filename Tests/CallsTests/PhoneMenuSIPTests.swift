import Foundation
import Realtime
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// A known menu path over real SIP and RTP on 127.0.0.1 in real time: the key goes out as an
/// RFC 4733 event (the simulated callee's answer offered telephone-event), and the callee's menu
/// goes on only once it received one. The path is pressed on its timing, so nothing here waits on
/// the recognizer hearing the menu (a menu the agent reads itself is tested in virtual time). The
/// person comes on 2.5 s after the key: 1 s after the menu, the two were one turn, which the
/// recognizer wrote as nothing (seen once; the agent then waited out the menu's minute).
/// RFC 4733 itself — packets, marker, end bit, volume — is `RTPTests.senderFollowsRFC4733`.
@Suite(.serialized, .tags(.realTimeCalls)) struct PhoneMenuSIPTests {
    @Test func aKnownPathsKeyGoesOutAsAnRFC4733Event() async throws {
        try await CallHarness.run { manager, store, _ in
            var template = CallTemplate(name: "deliveries line", purpose: "your delivery", questions: ["Can we deliver on Friday?"])
            template.menuPath = [.init(keys: "2", waitSeconds: 1)]
            _ = try await store.createTemplate(template)
            let script = ["<ivr 2 For billing, press 1. For deliveries, press 2.>", "<pause 2500> Hello, deliveries.", "Yes, Friday is fine."]
            var request = CallHarness.seedRequest(answers: script, maxRetries: 0, questions: [], callee: "0109877811")
            request.template = "deliveries line"
            let id = try await manager.create(request).outboundId
            // 25 s alone, 59–61 s inside make test.
            let call = try await CallHarness.waitFor(store, id, timeout: .seconds(150)) { $0.state.isTerminal }
            let said = try await store.transcript(callID: id).map { "\($0.entry.speaker): \($0.entry.text)" }
            #expect(call.state == .completed && call.failureReason == nil, "\(call.state) \(call.failureReason ?? ""): \(said)")
            let report = try #require(try await store.report(callID: id))
            #expect(report.keysSent?.map(\.key) == ["2"] && report.keysSent?.map(\.how) == [.rfc4733], "\(String(describing: report.keysSent))")
            // The menu refuses a call with no key (goodbye, hang up): an answer means the event arrived.
            #expect(try await store.answers(callID: id).first?.status == .answered, "through the menu to the person: \(said)")
        }
    }
}
