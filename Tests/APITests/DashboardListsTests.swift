import Foundation
import Testing
import TestSupport
@testable import API
@testable import Calls

/// The Templates and Do-not-call pages in headless Chromium at phone width: a template saved from
/// its form (and the server's message when a field is wrong), numbers added, searched, removed and
/// imported from a CSV with the row report — in English, then Korean, nothing overflowing.
@Suite(.serialized) struct DashboardListsTests {
    @Test(arguments: StoreBackend.allCases) func templatesAndTheDoNotCallListFromTheirPages(database: StoreBackend) async throws {
        let csv = FileManager.default.temporaryDirectory.appendingPathComponent("vb-dnc-\(UUID().uuidString).csv")
        try "전화번호,메모\n010-3000-0001,요청\nnope,\n010-3000-0002,\n".write(to: csv, atomically: true, encoding: .utf8)
        try await DashboardBrowserTests.withBrowser(name: "dashboard-lists", database: database) { browser, port in
            try await Self.walkThrough(browser, root: "http://127.0.0.1:\(port)/", csv: csv.path)
        }
    }

    static func walkThrough(_ browser: WebDriver, root: String, csv: String) async throws {
        try await browser.navigate(root + "#/templates")
        try await browser.execute("localStorage.setItem('vb.lang', 'en');")
        try await browser.navigate(root + "#/templates")
        try await browser.wait(for: "!document.querySelector('#no-templates').hidden")
        // A wrong field: the server's message lands next to it.
        try await browser.type("#template-name", "reminder")
        try await browser.type("#template-purpose", "{name}'s appointment")
        try await browser.click("#create-template")
        try await browser.wait(for: "document.querySelector('[data-error-for=questions]').textContent.includes('1 to 20 questions')")
        try await browser.type("#template-questions", "Can you come, {name}?\nDo you need parking?")
        try await browser.click("#create-template")
        try await browser.wait(for: "document.querySelector('li.template[data-name=reminder]')")
        let text = try await browser.execute("return document.querySelector('li.template').textContent;") as? String ?? ""
        #expect(text.contains("v1") && text.contains("2 questions: Can you come, {name}? / Do you need parking?"), "\(text)")
        try await browser.screenshot(to: "\(DashboardBrowserTests.artifacts)/dashboard-templates.png")

        try await browser.click("a[href='#/dnc']")
        try await browser.wait(for: "document.querySelector('#dnc-total')?.textContent === '0 numbers listed'")
        try await browser.type("#dnc-numbers", "010-1111-2222\n02 555 0101")
        try await browser.type("#dnc-reason", "asked")
        try await browser.click("#dnc-submit")
        try await browser.wait(for: "document.querySelectorAll('li.dnc-entry').length === 2")
        #expect(try await browser.execute("return document.querySelector('#dnc-report').textContent;") as? String == "2 added, 0 already listed")
        try await browser.type("#dnc-search", "5550")
        try await browser.wait(for: "document.querySelectorAll('li.dnc-entry').length === 1")
        try await browser.click("li.dnc-entry button")
        try await browser.wait(for: "document.querySelector('#dnc-total').textContent === '0 numbers listed'")
        try await browser.execute("const s = document.querySelector('#dnc-search'); s.value = ''; s.dispatchEvent(new Event('input'));")
        try await browser.type("#dnc-file", csv)
        // The import's own report (the add's "2 added, 0 already listed" is replaced when it starts).
        try await browser.wait(for: "document.querySelector('#dnc-report').textContent.includes('rows skipped')")
        let report = try await browser.execute("return document.querySelector('#dnc-report').textContent;") as? String ?? ""
        #expect(report == "2 added, 0 already listed, 1 rows skipped — line 3: not a phone number (3 to 20 digits, optionally starting with +)", "\(report)")
        try await browser.wait(for: "document.querySelectorAll('li.dnc-entry').length === 3")
        let numbers = try await browser.execute("return [...document.querySelectorAll('li.dnc-entry')].map(li => li.dataset.number).sort();") as? [String]
        #expect(numbers == ["01011112222", "01030000001", "01030000002"])
        try await browser.click("#lang")
        try await browser.wait(for: "document.querySelector('h1').textContent === '수신 거부 목록'")
        let fits = try await browser.execute("return document.documentElement.scrollWidth <= window.innerWidth;") as? Bool
        #expect(fits == true, "nothing overflows the phone width")
        try await browser.screenshot(to: "\(DashboardBrowserTests.artifacts)/dashboard-dnc-ko.png")
    }
}
