import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import Testing
import Tracing
import TestLanes
import TestSupport
@testable import API
@testable import Calls

/// The dashboard in real headless Chromium (chromedriver) against the live server and the
/// simulated callee: a call made from the form reaches `completed` without a reload. The call runs
/// in real time and its page shows what was heard (both answers, a turn per question), so it is a
/// real-time call suite: beside the e2e suites and two busy loops the second answer went unheard
/// (30 Nov).
@Suite(.serialized, .tags(.realTimeCalls)) struct DashboardBrowserTests {
    static let artifacts = Fixtures.repository.appendingPathComponent("test-artifacts").path

    /// The live server (its web root this repository's `web/`) and a phone-sized
    /// headless Chromium; a failing walk-through leaves `<name>-failure.png` in test-artifacts.
    static func withBrowser(name: String, database: StoreBackend = .sqlite, browserArguments: [String] = [], tracer: (any Tracer)? = nil,
                            configure: (inout VoiceBridgeConfig) -> Void = { _ in },
                            before: @Sendable (VoiceBridgeConfig) async throws -> Void = { _ in },
                            _ walk: @Sendable (WebDriver, Int) async throws -> Void) async throws {
        var config = try await TwilioStreamTests.config(database: database)
        let name = database == .sqlite ? name : "\(name)-\(database.rawValue)"
        config.http.webRoot = Fixtures.repository.appendingPathComponent("web").path
        configure(&config)
        let fixed = config
        try await TwilioStreamTests.withLiveServer(config, tracer: tracer) { port in
            try await before(fixed)
            let browser = try await WebDriver(width: 412, height: 915, arguments: browserArguments)   // a phone
            do {
                try await walk(browser, port)
            } catch {
                try? await browser.screenshot(to: "\(artifacts)/\(name)-failure.png")
                await browser.quit()
                throw error
            }
            await browser.quit()
        }
    }

    @Test(arguments: StoreBackend.allCases) func aCallFromTheFormCompletesLiveAndShowsItsResult(database: StoreBackend) async throws {
        try await Self.withBrowser(name: "dashboard", database: database) { browser, port in try await Self.walkThrough(browser, port: port) }
    }

    /// A traced call's page: its waterfall has a row for each turn span the OTLP backend got, with
    /// the turn's steps as the spans under it, and it names the trace to look the call up by.
    @Test(.enabled(if: OTLPReceiver.isInstalled)) func aTracedCallsPageNamesItsTraceAndDrawsItsTurnSpans() async throws {
        let receiver = try await OTLPReceiver()
        defer { receiver.stop() }
        let page = Locked<(id: String, shown: String, rows: [String])>(("", "", []))
        let spans = try await OTLPReceiver.withTracing(endpoint: receiver.tracesURL) { tracing in
            try await Self.withBrowser(name: "dashboard-trace", tracer: tracing.tracer) { browser, port in
                let id = try await Self.placeCall(port: port, answers: ["Yes, I can attend the meeting.", "No, the original location is fine."])
                try await browser.navigate("http://127.0.0.1:\(port)/#/calls/\(id)")
                try await browser.execute("localStorage.setItem('vb.lang', 'en');")
                try await browser.wait(for: "document.querySelector('#state')?.dataset.state === 'completed'", timeout: .seconds(90))
                try await browser.wait(for: "document.querySelectorAll('#turn-chart .turn').length >= 2 && !document.querySelector('[data-field=trace_id]').hidden")
                let shown = try await browser.execute("return document.querySelector('[data-field=trace_id]').textContent;") as? String ?? ""
                let rows = try await browser.execute("return [...document.querySelectorAll('#turn-chart .turn')].map(g => g.dataset.turn + ':' + g.querySelectorAll('rect.step').length);") as? [String] ?? []
                page.withLock { $0 = (id, shown, rows) }
            }
            let id = page.value.id, rows = page.value.rows.count
            return try await receiver.spans { spans in
                spans.filter { $0.name == "turn" }.count >= rows && spans.contains { $0.name == "call" && $0.attributes["voicebridge.call.id"] as? String == id }
            }
        }
        let (id, shown, rows) = page.value
        let call = try #require(spans.first { $0.name == "call" && $0.attributes["voicebridge.call.id"] as? String == id })
        #expect(shown == call.traceID, "the page names the call's trace: \(shown) vs \(call.traceID)")
        let turns = spans.filter { $0.name == "turn" && $0.parentSpanID == call.spanID }.sorted { $0.start < $1.start }
        let traced = turns.map { turn in "\(turn.attributes["voicebridge.turn.number"] as? Int ?? 0):\(spans.filter { $0.parentSpanID == turn.spanID }.count)" }
        #expect(rows.count >= 2 && rows == traced, "a waterfall row per turn span, a bar per step span: \(rows) vs \(traced)")
    }

    /// A call over the API to the simulated callee; its id.
    static func placeCall(port: Int, answers: [String]) async throws -> String {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/outbound")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: [
            "caller_number": "0701234567", "callee_number": "0109876543", "purpose": "tomorrow's 2 pm meeting",
            "questions": ["Can you attend?", "Does the place need to change?"], "metadata": ["simulated_answers": answers]])))
        let body = try await HTTPClient.shared.execute(request, timeout: .seconds(10)).body.collect(upTo: 1 << 16)
        return try #require((try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any])?["outbound_id"] as? String, "\(String(buffer: body))")
    }

    static func walkThrough(_ browser: WebDriver, port: Int) async throws {
        let root = "http://127.0.0.1:\(port)/"
        try await browser.navigate(root + "#/new")
        try await browser.execute("localStorage.setItem('vb.lang', 'en'); window.__sameDocument = true;")
        try await browser.wait(for: "document.querySelector('#caller_number')")
        try await browser.type("#caller_number", "070-1234-5678")
        try await browser.type("#callee_number", "010-9876-5432")
        try await browser.type("#caller_display_name", "ABC 주식회사")
        try await browser.type("#purpose", "tomorrow's 2 pm meeting")
        try await browser.type("#question-list li:nth-child(1) input", "Can you attend?")
        try await browser.click("#add-question")
        try await browser.type("#question-list li:nth-child(2) input", "Does the place need to change?")
        try await browser.click("details summary")
        try await browser.type("#simulated_answers", "Yes, I can attend the meeting.\nNo, the original location is fine.")
        try await browser.screenshot(to: "\(artifacts)/dashboard-new-call.png")
        // An invalid field first: the form shows the server's message next to it and keeps the input.
        try await browser.execute("document.querySelector('#max_duration').value = '5';")
        try await browser.click("#submit")
        try await browser.wait(for: "document.querySelector('[data-error-for=max_duration]').textContent.includes('between 10')")
        try await browser.execute("document.querySelector('#max_duration').value = '120';")
        try await browser.click("#submit")

        // The app moves to the call's page; its state follows the call over /api/events.
        try await browser.wait(for: "location.hash.startsWith('#/calls/ob-')")
        try await browser.wait(for: "document.querySelector('#state')?.dataset.state === 'completed'", timeout: .seconds(90))
        try await browser.wait(for: "document.querySelectorAll('#transcript li').length >= 4", timeout: .seconds(10))
        let noReload = try await browser.execute("return window.__sameDocument === true;") as? Bool
        #expect(noReload == true, "the page was never reloaded")
        let statuses = try await browser.execute("return [...document.querySelectorAll('#answers li')].map(li => li.dataset.status);") as? [String]
        #expect(statuses == ["answered", "answered"])
        let answers = try await browser.execute("return document.querySelector('#answers').textContent;") as? String ?? ""
        #expect(answers.contains("\"yes\"") && answers.contains("\"no\"") && answers.contains("confidence"), "\(answers)")
        let lines = try await browser.execute("return [...document.querySelectorAll('#transcript li')].map(li => li.textContent);") as? [String] ?? []
        #expect(lines.first?.contains("[00:00]") == true && lines.first?.contains("Hello, this is the AI assistant of ABC 주식회사") == true, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("👤") }, "callee lines carry the speaker icon: \(lines)")
        let timeline = try await browser.execute("return [...document.querySelectorAll('#timeline .state')].map(s => s.dataset.state);") as? [String]
        #expect(timeline == ["queued", "dialing", "ringing", "connected", "completed"])
        let attempts = try await browser.execute("return [...document.querySelectorAll('#attempts li')].map(li => li.dataset.outcome);") as? [String]
        #expect(attempts == ["completed"], "the call's one attempt and its outcome: \(attempts ?? [])")
        try await browser.wait(for: "!document.querySelector('#recording').hidden")
        // The report: one timeline row per agent turn, each with its five timed steps, and the cost.
        try await browser.wait(for: "document.querySelectorAll('#turn-chart .turn').length >= 2")
        let steps = try await browser.execute("return [...document.querySelectorAll('#turn-chart .turn')].map(g => g.querySelectorAll('rect.step').length);") as? [Int]
        #expect(steps?.allSatisfy { $0 == 5 } == true, "end of turn, transcript, reply, audio and wire in every turn: \(steps ?? [])")
        let cost = try await browser.execute("return document.querySelector('#cost').textContent;") as? String ?? ""
        #expect(cost.hasPrefix("Estimated cost: 0.0000 USD"), "offline calls cost nothing by default: \(cost)")
        let stages = try await browser.execute("return document.querySelectorAll('#stages tr').length;") as? Int
        #expect(stages == 14, "six caller stages, six agent stages, two queues: \(stages ?? 0)")
        try await browser.execute("document.querySelector('#turns').scrollIntoView();")
        try await browser.screenshot(to: "\(artifacts)/dashboard-call-turns.png")
        let buttons = try await browser.execute("return [...document.querySelectorAll('.actions button')].filter(b => b.offsetParent !== null).map(b => b.id);") as? [String]
        #expect(buttons == ["retry-call"], "an ended call offers retry, not cancel: \(buttons ?? [])")
        try await browser.screenshot(to: "\(artifacts)/dashboard-call-detail.png")

        // Back to the list: the call is there, completed, with the stats counted.
        try await browser.click("a[href='#/']")
        try await browser.wait(for: "document.querySelector('#calls tbody tr [data-state=completed]')")
        let completed = try await browser.execute("return document.querySelector('[data-stat=completed]').textContent;") as? String
        #expect(completed == "1")
        let masked = try await browser.execute("return document.querySelector('#calls tbody tr td:nth-child(3)').textContent;") as? String
        #expect(masked == "010******32")
        // The statistics charts: outcomes, each question's answers, calls per hour — each saying what it counts.
        try await browser.wait(for: "document.querySelector('#outcome-chart .bar[data-key=completed]')?.dataset.value === '1'")
        let questions = try await browser.execute("return [...document.querySelectorAll('#question-chart .question')].map(g => g.dataset.question + ' ' + [...g.querySelectorAll('rect')].map(r => r.dataset.status + '=' + r.dataset.count).join(','));") as? [String]
        #expect(questions == ["Can you attend? answered=1", "Does the place need to change? answered=1"], "\(questions ?? [])")
        let captions = try await browser.execute("return [...document.querySelectorAll('#charts figcaption')].map(c => c.textContent);") as? [String] ?? []
        #expect(captions.first?.contains("as a percentage of ended calls") == true, "\(captions)")
        let hours = try await browser.execute("return [...document.querySelectorAll('#hour-chart .bar')].reduce((n, g) => n + Number(g.dataset.value), 0);") as? Int
        #expect(hours == 1, "one attempt started")
        try await browser.execute("document.querySelector('#charts').scrollIntoView();")
        try await browser.screenshot(to: "\(artifacts)/dashboard-charts.png")
        try await browser.execute("window.scrollTo(0, 0);")
        try await browser.screenshot(to: "\(artifacts)/dashboard-calls.png")
        // Korean.
        try await browser.click("#lang")
        try await browser.wait(for: "document.querySelector('h1').textContent === 'AI 아웃바운드 콜'")
        try await browser.wait(for: "document.querySelector('#calls tbody tr [data-state=completed]')?.textContent.includes('완료')")
        try await browser.screenshot(to: "\(artifacts)/dashboard-calls-ko.png")
        let overflow = try await browser.execute("return document.documentElement.scrollWidth <= window.innerWidth;") as? Bool
        #expect(overflow == true, "nothing overflows the phone width")
    }
}
