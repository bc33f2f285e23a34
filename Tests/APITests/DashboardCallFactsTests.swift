import Foundation
import Testing
import TestSupport
@testable import API
@testable import Calls

/// A call's page shows who answered (the carrier's answering-machine verdict) and the bot that ran
/// it, in the page's language, and shows neither row for a call that has neither.
@Suite(.serialized) struct DashboardCallFactsTests {
    @Test func theVerdictAndTheBotAreShownOnlyWhenTheCallHasThem() async throws {
        try await DashboardBrowserTests.withBrowser(rtpPorts: 43800...43999, name: "dashboard-call-facts", before: { config in
            let store = try CallStore(path: config.database.path)
            var bot = CallRecord(outboundId: "ob-0000b071", callerNumber: "+15550009999", calleeNumber: "+15550000001", purpose: "a bot call", questions: ["q?"])
            bot.botUrl = "wss://bot.example.com/twilio"
            bot.answeredBy = "machine"
            try store.insert(bot)
            try store.insert(CallRecord(outboundId: "ob-00000a11", callerNumber: "+15550009999", calleeNumber: "+15550000002", purpose: "a plain call", questions: ["q?"]))
        }) { browser, port in
            let root = "http://127.0.0.1:\(port)/"
            try await browser.navigate(root)
            try await browser.execute("localStorage.setItem('vb.lang', 'en');")
            try await browser.navigate(root + "#/calls/ob-0000b071")
            try await browser.wait(for: "document.querySelector('[data-field=bot_url]')?.textContent === 'wss://bot.example.com/twilio'")
            let facts = try await browser.execute("return [...document.querySelectorAll('.facts dt')].filter(dt => !dt.hidden).map(dt => dt.textContent + ': ' + dt.nextElementSibling.textContent);") as? [String] ?? []
            #expect(facts.contains("Answered by: an answering machine") && facts.contains("Bot: wss://bot.example.com/twilio"), "\(facts)")
            try await browser.navigate(root + "#/calls/ob-00000a11")
            try await browser.wait(for: "document.querySelector('[data-field=purpose]')?.textContent === 'a plain call'")
            let hidden = try await browser.execute("return ['answered_by', 'bot_url'].map(n => document.querySelector(`[data-field=${n}]`).hidden && document.querySelector(`[data-field=${n}]`).previousElementSibling.hidden);") as? [Bool]
            #expect(hidden == [true, true], "a call with neither shows neither")
            try await browser.navigate(root + "#/calls/ob-0000b071")
            try await browser.wait(for: "document.querySelector('[data-field=answered_by]')?.textContent === 'an answering machine'")
            try await browser.click("#lang")
            try await browser.wait(for: "document.querySelector('[data-field=answered_by]')?.textContent === '자동응답기'")
        }
    }
}
