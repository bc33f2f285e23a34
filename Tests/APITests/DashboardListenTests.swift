import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TestSupport
@testable import API
@testable import Calls

/// Listening to a live SIP call from its page in headless Chromium: the page receives the call's
/// audio (the simulated callee's and the agent's voices, mixed) through the Web Audio API, and
/// who listened is in the call's events; the recording is the same file as without a listener.
@Suite(.serialized) struct DashboardListenTests {
    @Test func aSupervisorHearsALiveCallFromItsPage() async throws {
        let database = Locked<String?>(nil)
        try await DashboardBrowserTests.withBrowser(name: "dashboard-listen", before: { config in
            database.withLock { $0 = config.database.path }
        }) { browser, port in
            let root = "http://127.0.0.1:\(port)/"
            var create = HTTPClientRequest(url: root + "api/outbound/")
            create.method = .POST
            create.headers.add(name: "Content-Type", value: "application/json")
            create.body = .bytes(ByteBuffer(string: #"{"caller_number":"070-1234-5678","callee_number":"010-9876-5432","purpose":"tomorrow's 2 pm meeting","questions":["Can you attend?","Does the place need to change?"],"metadata":{"simulated_answers":["Yes, I can attend the meeting.","No, the original location is fine."]}}"#))
            let response = try await HTTPClient.shared.execute(create, timeout: .seconds(10))
            let created = try JSONSerialization.jsonObject(with: Data(buffer: try await response.body.collect(upTo: 1 << 16))) as? [String: Any]
            let id = try #require(created?["outbound_id"] as? String)

            try await browser.navigate(root + "#/calls/\(id)")
            try await browser.execute("localStorage.setItem('vb.lang', 'en');")
            try await browser.navigate(root + "#/calls/\(id)")
            try await browser.wait(for: "!document.querySelector('#listen-panel').hidden", timeout: .seconds(20))
            try await browser.click("#listen")
            // Two seconds of audio, and loud enough to be voices (the agent's greeting at least).
            try await browser.wait(for: "window.__listen && window.__listen.samples >= 16000 && window.__listen.rms > 0.01", timeout: .seconds(15))
            #expect(try await browser.execute("return document.querySelector('#listen').textContent;") as? String == "Stop listening")
            try await browser.screenshot(to: "\(DashboardBrowserTests.artifacts)/dashboard-listen.png")
            // A real SIP call on the local engine: ~20 s alone, several times that beside make test's shared pass.
            try await browser.wait(for: "document.querySelector('#state').dataset.state === 'completed'", timeout: .seconds(180))
            try await browser.wait(for: "document.querySelector('#listen-panel').hidden && document.querySelector('#listen-status').textContent === 'Not listening.'")
            let store = try CallStore(path: try #require(database.value))
            let events = try await store.events(callID: id).filter { $0.type.hasPrefix("listening_") }
            #expect(events.map(\.type) == ["listening_started", "listening_stopped"], "\(events)")
            #expect(events.first?.payload.contains(#""by":"local""#) == true && events.first?.payload.contains(#""side":"mixed""#) == true, "\(events)")
        }
    }
}
