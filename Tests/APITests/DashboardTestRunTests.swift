import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TestLanes
import TestSupport
@testable import API
@testable import Calls

/// The Tests page in headless Chromium: a suite with a misspelt key is refused naming it; a suite
/// with a persona that passes and one that expects the wrong answer runs as two real calls, the
/// table shows PASS and FAIL with expected vs got, and a row opens its call. The verdicts are what
/// the calls heard in real time: a real-time call suite.
@Suite(.serialized, .tags(.realTimeCalls)) struct DashboardTestRunTests {
    static let suite = """
        name: smoke
        personas:
          - name: cooperative
            says: ["Yes, I can attend the meeting.", "No, the original location is fine."]
            expect:
              answers:
                - {status: answered, answer: "yes"}
          - name: expects the wrong answer
            says: ["Yes, I can attend the meeting.", "No, the original location is fine."]
            expect:
              answers:
                - {status: answered, answer: "no"}
        """

    @Test func aSuiteRunsFromThePageAndEachRowOpensItsCall() async throws {
        try await DashboardBrowserTests.withBrowser(name: "dashboard-tests") { browser, port in
            let root = "http://127.0.0.1:\(port)/"
            var create = HTTPClientRequest(url: root + "api/templates")
            create.method = .POST
            create.headers.add(name: "Content-Type", value: "application/json")
            create.body = .bytes(ByteBuffer(string: #"{"name":"meeting","purpose":"tomorrow's 2 pm meeting","questions":["Can you attend?","Does the place need to change?"]}"#))
            #expect(try await HTTPClient.shared.execute(create, timeout: .seconds(10)).status.code == 201)

            try await browser.navigate(root + "#/tests")
            try await browser.execute("localStorage.setItem('vb.lang', 'en');")
            try await browser.navigate(root + "#/tests")
            try await browser.wait(for: "document.querySelector('#test-template option[value=meeting]')")
            try await browser.execute("document.querySelector('#test-suite').value = arguments[0];", ["name: x\npersonas:\n  - {name: a, says: [hi], expects: {state: busy}}\n"])
            try await browser.click("#run-tests")
            try await browser.wait(for: "document.querySelector('#test-errors').textContent.includes('expects')")
            let refusal = try await browser.execute("return document.querySelector('#test-errors').textContent;") as? String ?? ""
            #expect(refusal.contains("suite.personas[0].expects: unknown key"), "\(refusal)")

            try await browser.execute("document.querySelector('#test-suite').value = arguments[0];", [Self.suite])
            try await browser.click("#run-tests")
            try await browser.wait(for: "!document.querySelector('#test-results').hidden", timeout: .seconds(120))
            let rows = try await browser.execute("return [...document.querySelectorAll('#test-results tbody tr')].map((r) => r.textContent);") as? [String] ?? []
            #expect(rows.count == 3 && rows[0].contains("cooperative") && rows[0].contains("PASS"), "\(rows)")
            #expect(rows.count == 3 && rows[1].contains("expects the wrong answer") && rows[1].contains("FAIL"), "\(rows)")
            #expect(rows.count == 3 && rows[2].contains("Can you attend? answer: expected no, got yes"), "\(rows)")
            // The calls ran in virtual time (the local engine), and the page says so with the speed-up.
            let progress = try await browser.execute("return document.querySelector('#test-progress').textContent;") as? String ?? ""
            #expect(progress.wholeMatch(of: /smoke: 1 passed of 2 \(in virtual time, ×[0-9]+\.[0-9] real time\)/) != nil, "\(progress)")
            let fits = try await browser.execute("return document.documentElement.scrollWidth <= window.innerWidth;") as? Bool
            #expect(fits == true, "nothing overflows the phone width")
            try await browser.execute("document.querySelector('#test-progress').scrollIntoView();")
            try await browser.screenshot(to: "\(DashboardBrowserTests.artifacts)/dashboard-tests.png")
            let link = try await browser.execute("return document.querySelector('tr.test-fail a').getAttribute('href');") as? String ?? ""
            #expect(link.hasPrefix("#/calls/ob-"), "\(link)")
            try await browser.click("tr.test-fail a")
            try await browser.wait(for: "location.hash.startsWith('#/calls/ob-') && document.querySelector('#transcript li')")
        }
    }
}
