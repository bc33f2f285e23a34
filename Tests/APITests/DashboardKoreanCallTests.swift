import Foundation
import Testing
import TestLanes
import TestSupport

/// A Korean call placed from the dashboard (its Korean interface, the form's language set to 한국어)
/// completes offline: the agent greets in Korean, the simulated callee's "예" is heard by Whisper and
/// stored, and the call's page shows it. A call that must be heard in real time: a real-time call
/// suite, as `DashboardBrowserTests`.
@Suite(.serialized, .tags(.realTimeCalls)) struct DashboardKoreanCallTests {
    @Test func aKoreanCallFromTheFormCompletes() async throws {
        try await DashboardBrowserTests.withBrowser(name: "dashboard-korean",
                                                    configure: { $0.engine.local.whisperPath = Fixtures.whisper }) { browser, port in
            try await browser.navigate("http://127.0.0.1:\(port)/#/new")
            try await browser.execute("localStorage.setItem('vb.lang', 'ko'); location.reload();")
            try await browser.wait(for: "document.querySelector('#language') && document.querySelector('label[for=language]').textContent === '통화 언어'")
            try await browser.type("#caller_number", "070-1234-5678")
            try await browser.type("#callee_number", "010-9876-5432")
            try await browser.type("#caller_display_name", "ABC 회사")
            try await browser.type("#purpose", "내일 회의")
            try await browser.type("#question-list li:nth-child(1) input", "내일 회의에 참석하실 수 있나요?")
            try await browser.execute("document.querySelector('#language').value = 'ko';")
            try await browser.click("details summary")
            try await browser.type("#simulated_answers", "예.")
            try await browser.click("#submit")
            try await browser.wait(for: "location.hash.startsWith('#/calls/ob-')")
            try await browser.wait(for: "document.querySelector('#state')?.dataset.state === 'completed'", timeout: .seconds(90))
            try await browser.wait(for: "document.querySelectorAll('#transcript li').length >= 3", timeout: .seconds(10))
            let lines = try await browser.execute("return [...document.querySelectorAll('#transcript li')].map(li => li.textContent);") as? [String] ?? []
            #expect(lines.first?.contains("안녕하세요, ABC 회사의 AI 상담원입니다.") == true, "\(lines)")
            let statuses = try await browser.execute("return [...document.querySelectorAll('#answers li')].map(li => li.dataset.status);") as? [String]
            #expect(statuses == ["answered"], "what the agent heard: \(lines)")
            let answers = try await browser.execute("return document.querySelector('#answers').textContent;") as? String ?? ""
            #expect(answers.contains("\"yes\"") && answers.contains("예"), "\(answers)")
            let summary = try await browser.execute("return document.querySelector('#summary')?.textContent ?? '';") as? String ?? ""
            #expect(summary.hasPrefix("내일 회의 관련 통화."), "the summary is in the call's language: \(summary)")
            try await browser.screenshot(to: "\(DashboardBrowserTests.artifacts)/dashboard-korean-call.png")
        }
    }
}
