import Dialogue
import Foundation
import Knowledge
import Logging
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

    /// The questions calls passed on, in the campaign's results and on the Knowledge page: grouped
    /// with their counts, one answered with the operator's words and one as another wording of the
    /// FAQ row the page offers, and gone.
    @Test func questionsCallersAskedAreAnsweredFromThePage() async throws {
        try await DashboardBrowserTests.withBrowser(name: "dashboard-knowledge-questions", before: { config in
            let store = try CallStore(path: config.database.path)
            let knowledge = KnowledgeBase(store: store.knowledge, embedder: try KnowledgeBase.embedder(for: config, logger: Logger(label: "test")))
            let faq = "question,answer\nAre pets allowed?,Dogs on a lead are welcome in the waiting room.\n"
            _ = try await knowledge.upload(collection: "clinic", documents: [try KnowledgeDocument.parse(name: "faq.csv", bytes: Array(faq.utf8), sha256: "x")])
            let campaign = Campaign(name: "spring check-ups", callerNumber: "+15550009999")
            try await store.campaigns.create(campaign)
            // Due tomorrow: the running server does not dial it.
            var call = CallRecord(outboundId: "ob-0000a5c0", callerNumber: "+15550009999", calleeNumber: "+15550000001", purpose: "p",
                                  questions: ["q?"], scheduledAt: Date().addingTimeInterval(86_400))
            call.knowledge = ["clinic"]
            call.campaignId = campaign.id
            try await store.insert(call)
            var tracker = TaskTracker(questions: call.questions)
            tracker.openQuestions = ["Do you sell gift cards?", "Can I bring my dog?", "Do you sell gift card?"]
            try await store.saveResult(callID: call.outboundId, result: ConversationResult(tracker: tracker, transcript: [], durationSeconds: 5,
                                                                                          context: ConversationContext(purpose: "p", questions: call.questions)))
        }) { browser, port in
            let root = "http://127.0.0.1:\(port)/"
            try await browser.navigate(root + "#/campaigns")
            try await browser.execute("localStorage.setItem('vb.lang', 'en');")
            try await browser.navigate(root + "#/campaigns")
            // The campaign's results list them too, with the way to the page that answers them.
            try await browser.wait(for: "document.querySelector('li.campaign details.campaign-results summary')")
            try await browser.click("li.campaign details.campaign-results summary")
            try await browser.wait(for: "document.querySelector('li.campaign [data-figure=open-questions]')")
            let listed = try await browser.execute("""
                const f = document.querySelector('li.campaign [data-figure=open-questions]');
                return [f.querySelector('h3').textContent, ...[...f.querySelectorAll('li')].map((li) => li.textContent)];
                """) as? [String]
            #expect(listed == ["Questions callers asked, not yet answered: 3", "Do you sell gift card? asked 2 times", "Can I bring my dog? asked once"],
                    "\(listed ?? [])")
            try await browser.click("li.campaign [data-figure=open-questions] a")
            try await browser.wait(for: "document.querySelectorAll('li.knowledge-question').length === 2")
            let first = "li.knowledge-question:nth-child(1)", second = "li.knowledge-question:nth-child(2)"
            #expect(try await browser.execute("return document.querySelector('\(first) strong').textContent;") as? String == "Do you sell gift card?")
            let counts = try await browser.execute("return document.querySelector('\(first) p.muted').textContent;") as? String ?? ""
            #expect(counts.hasPrefix("asked 2 times"), "\(counts)")
            #expect(try await browser.execute("return document.querySelector('\(first) input.answer-collection').value;") as? String == "clinic")

            try await browser.type("\(first) textarea.answer-text", "Yes, gift cards of any amount at the front desk.")
            try await browser.click("\(first) button.add-answer")
            try await browser.wait(for: "document.querySelector('\(first) p.answer-report').textContent.length > 0")
            #expect(try await browser.execute("return document.querySelector('\(first) p.answer-report').textContent;") as? String
                    == "Added to clinic: the next call answers it.")
            try await browser.wait(for: "!document.querySelector('\(second) button.same-as').hidden")
            #expect(try await browser.execute("return document.querySelector('\(second) button.same-as').textContent;") as? String
                    == "Same answer as \"Are pets allowed?\"")
            let fits = try await browser.execute("return document.documentElement.scrollWidth <= window.innerWidth;") as? Bool
            #expect(fits == true, "nothing overflows the phone width")
            try await browser.screenshot(to: "\(DashboardBrowserTests.artifacts)/dashboard-knowledge-questions.png")
            try await browser.click("\(second) button.same-as")
            try await browser.wait(for: "document.querySelector('\(second) p.answer-report').textContent.length > 0")

            try await browser.navigate(root + "#/")
            try await browser.navigate(root + "#/knowledge")
            try await browser.wait(for: "!document.querySelector('#no-questions').hidden")
            try await browser.wait(for: "document.querySelector('#knowledge-collections button[data-name=clinic]')")
            try await browser.click("#knowledge-collections button[data-name=clinic]")
            try await browser.wait(for: "[...document.querySelectorAll('li.knowledge-document')].some((li) => li.dataset.name === 'answered-questions.csv')")
        }
    }
}
