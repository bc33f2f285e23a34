import Foundation
import Testing
import TestSupport
@testable import API
@testable import Calls

/// The Knowledge page in headless Chromium at phone width: an upload with a bad file stores
/// nothing and names the file and line; a good one lists its documents; a question in other words
/// finds the FAQ row and shows what the offline engine would say; a delete empties the list.
@Suite(.serialized) struct DashboardKnowledgeTests {
    @Test func uploadSearchAndDeleteFromThePage() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vb-knowledge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let faq = folder.appendingPathComponent("clinic-faq.csv"), broken = folder.appendingPathComponent("broken.csv")
        try "question,answer\nIs there parking at the clinic?,Yes: twenty parking spaces in the basement garage.\n주차장이 있나요?,지하 주차장에 20대를 세울 수 있습니다.\n"
            .write(to: faq, atomically: true, encoding: .utf8)
        try "question,answer\nWhen are you open?,9 to 6\nWhat about Sundays?\n".write(to: broken, atomically: true, encoding: .utf8)
        try await DashboardBrowserTests.withBrowser(name: "dashboard-knowledge") { browser, port in
            let root = "http://127.0.0.1:\(port)/"
            try await browser.navigate(root + "#/knowledge")
            try await browser.execute("localStorage.setItem('vb.lang', 'en');")
            try await browser.navigate(root + "#/knowledge")
            try await browser.wait(for: "!document.querySelector('#no-knowledge').hidden")
            try await browser.type("#knowledge-collection", "clinic")
            try await browser.type("#knowledge-files", faq.path + "\n" + broken.path)
            try await browser.wait(for: "document.querySelector('#knowledge-report').textContent.includes('line')")
            let refused = try await browser.execute("return document.querySelector('#knowledge-report').textContent;") as? String ?? ""
            #expect(refused == "broken.csv, line 3: the row has 1 fields; the header has 2", "\(refused)")
            #expect(try await browser.execute("return document.querySelectorAll('li.knowledge-document').length;") as? Int == 0, "nothing stored")

            try await browser.type("#knowledge-files", faq.path)
            try await browser.wait(for: "document.querySelectorAll('li.knowledge-document').length === 1")
            #expect(try await browser.execute("return document.querySelector('#knowledge-report').textContent;") as? String == "clinic-faq.csv: 2 chunks")
            try await browser.wait(for: "document.querySelector('#knowledge-collections button[data-name=clinic]')")

            try await browser.type("#knowledge-question", "Is there a car park for patients?")
            try await browser.click("#knowledge-ask")
            try await browser.wait(for: "document.querySelectorAll('li.knowledge-hit').length > 0")
            let first = try await browser.execute("return document.querySelector('li.knowledge-hit strong').textContent;") as? String
            #expect(first == "Is there parking at the clinic?")
            let answer = try await browser.execute("return document.querySelector('#knowledge-answer').textContent;") as? String ?? ""
            #expect(answer.hasPrefix("The offline engine would"), "\(answer)")
            let fits = try await browser.execute("return document.documentElement.scrollWidth <= window.innerWidth;") as? Bool
            #expect(fits == true, "nothing overflows the phone width")
            try await browser.screenshot(to: "\(DashboardBrowserTests.artifacts)/dashboard-knowledge.png")

            try await browser.click("li.knowledge-document button")
            try await browser.wait(for: "document.querySelectorAll('li.knowledge-document').length === 0")
            try await browser.wait(for: "!document.querySelector('#no-knowledge').hidden")
        }
    }
}
