import Foundation
import Testing
import TestLanes
import TestSupport
@testable import API
@testable import Calls

/// Flows on the dashboard, in headless Chromium at phone width: a YAML flow with a mistake gets
/// the server's errors named by step under the editor; fixed, the template is saved and its graph
/// drawn; a call from it (the simulated callee over real SIP) shows on its page the path it took
/// highlighted, its fields and its post-call analysis.
@Suite(.serialized, .tags(.realTimeCalls)) struct DashboardFlowTests {
    static let yaml = """
        start: attend
        steps:
          - {id: attend, ask: "Will you come to the open day on Friday?", field: attending, kind: yes_no, next: route}
          - id: route
            branch: [{field: GUESTS, min: 3, next: big_group}, {field: attending, is: "yes", next: guests}]
            default: declined
          - {id: guests, ask: "How many people will come with you?", field: guests, kind: number, next: size}
          - {id: size, branch: [{field: guests, min: 3, next: big_group}], default: meal}
          - {id: big_group, say: "For a group we will reserve a table.", next: meal}
          - {id: meal, ask: "Would you like fish or pasta for lunch?", field: meal, kind: choice, choices: [fish, pasta], next: booked}
          - {id: booked, end: "Thank you, see you on Friday.", outcome: registered}
          - {id: declined, end: "Thank you for letting us know.", outcome: declined}
        """

    static func json(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [text], options: .fragmentsAllowed), as: UTF8.self).dropFirst().dropLast().description
    }

    @Test func aFlowIsEditedCheckedDrawnAndACallsPathShown() async throws {
        try await DashboardBrowserTests.withBrowser(name: "dashboard-flow") { browser, port in
            let root = "http://127.0.0.1:\(port)/"
            try await browser.navigate(root + "#/templates")
            try await browser.execute("localStorage.setItem('vb.lang', 'en');")
            try await browser.navigate(root + "#/templates")
            try await browser.wait(for: "document.querySelector('#template-flow')")
            try await browser.type("#template-name", "open day")
            try await browser.type("#template-purpose", "the open day")
            try await browser.execute("document.querySelector('#template-flow').value = \(Self.json(Self.yaml));")
            try await browser.click("#create-template")
            try await browser.wait(for: "document.querySelectorAll('#flow-errors li').length > 0")
            let errors = try await browser.execute("return [...document.querySelectorAll('#flow-errors li')].map((li) => li.textContent);") as? [String]
            #expect(errors == ["flow.steps.route.branch.0.field: no step asks 'GUESTS'"], "\(errors ?? [])")
            try await browser.screenshot(to: "\(DashboardBrowserTests.artifacts)/dashboard-flow-errors.png")

            let fixed = Self.yaml.replacingOccurrences(of: "[{field: GUESTS, min: 3, next: big_group}, ", with: "[")
            try await browser.execute("document.querySelector('#template-flow').value = \(Self.json(fixed));")
            try await browser.click("#create-template")
            try await browser.wait(for: "document.querySelector('li.template[data-name=\"open day\"] svg.flow-graph')")
            #expect(try await browser.execute("return document.querySelectorAll('li.template svg.flow-graph g.step').length;") as? Int == 8)
            #expect(try await browser.execute("return document.querySelectorAll('#flow-errors li').length;") as? Int == 0)

            // The page edits flows, not analyses: a new version with one (the API's PUT), then a
            // call from the template; the simulated callee says its lines over SIP.
            let analysed = try await browser.execute("""
                return fetch('/api/templates').then((r) => r.json()).then((list) => {
                  const tp = list.items.find((t) => t.name === 'open day');
                  return fetch('/api/templates/' + tp.id, {method: 'PUT', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({
                    name: tp.name, purpose: tp.purpose, flow: tp.flow, analysis: {success: 'the callee registered'}})}).then((r) => r.status);
                });
                """) as? Int
            #expect(analysed == 200)
            // Edited in place: the page's editor loads v2's flow, a line is changed, and saving
            // makes v3 — keeping the analysis the form does not show.
            try await browser.navigate(root + "#/")
            try await browser.navigate(root + "#/templates")
            try await browser.wait(for: "document.querySelector('li.template[data-name=\"open day\"] [data-action=edit]')")
            try await browser.click("li.template[data-name=\"open day\"] [data-action=edit]")
            try await browser.wait(for: "document.querySelector('#template-flow').value.includes('see you on Friday')")
            #expect(try await browser.execute("return document.querySelector('#new-template-title').textContent;") as? String == "Editing: open day v2")
            try await browser.execute("const f = document.querySelector('#template-flow'); f.value = f.value.replace('see you on Friday.', 'see you on Friday at ten.');")
            try await browser.click("#create-template")
            try await browser.wait(for: "document.querySelector('li.template[data-name=\"open day\"] .cstate')?.textContent === 'v3'")
            let edited = try await browser.execute("""
                return fetch('/api/templates').then((r) => r.json()).then((list) => {
                  const tp = list.items.find((t) => t.name === 'open day');
                  return [tp.flow.steps.find((s) => s.id === 'booked').end, tp.analysis?.success ?? 'none'];
                });
                """) as? [String]
            #expect(edited == ["Thank you, see you on Friday at ten.", "the callee registered"], "\(edited ?? [])")
            #expect(try await browser.execute("return document.querySelector('#new-template-title').textContent;") as? String == "New template")
            let created = try await browser.execute("""
                return fetch('/api/outbound/', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({
                  template: 'open day', caller_number: '070-1234-5678', callee_number: '010-9876-5432',
                  metadata: {simulated_answers: ['Yes, I will.', 'Twenty five people.', 'Fish, please.', 'Fish, please.']}})}).then((r) => r.json()).then((b) => b.outbound_id);
                """) as? String
            let id = try #require(created)
            try await browser.navigate(root + "#/calls/\(id)")
            try await browser.wait(for: "document.querySelectorAll('#flow-graph g.step.taken').length === 7", timeout: .seconds(90))
            try await browser.wait(for: "!document.querySelector('#analysis-panel').hidden")
            let taken = try await browser.execute("return [...document.querySelectorAll('#flow-graph g.step.taken')].map((g) => g.dataset.step);") as? [String]
            #expect(taken == ["attend", "route", "guests", "size", "big_group", "meal", "booked"], "\(taken ?? [])")
            #expect(try await browser.execute("return document.querySelectorAll('#flow-graph path.edge.taken').length;") as? Int == 6)
            #expect(try await browser.execute("return document.querySelector('#flow-outcome').textContent;") as? String == "Outcome: registered")
            let fields = try await browser.execute("return [...document.querySelectorAll('#flow-fields li')].map((li) => li.textContent).sort();") as? [String]
            let heard = try await browser.execute("""
                return fetch('/api/outbound/\(id)/result').then((r) => r.json()).then((b) => (b.transcript || []).map((t) => t.speaker + ': ' + t.text));
                """) as? [String]
            #expect(fields == ["attending: true", "guests: 25", "meal: fish"], "\(fields ?? []) — the call: \(heard ?? [])")
            let success = try await browser.execute("return document.querySelector('#analysis-panel [data-field=success]').textContent;") as? String
            #expect(success == "✅ the flow reached its end 'registered'")
            #expect(try await browser.execute("return document.querySelector('#analysis-panel [data-field=method]').textContent;") as? String == "offline rules")
            #expect(try await browser.execute("return document.documentElement.scrollWidth <= window.innerWidth;") as? Bool == true, "nothing overflows the phone width")
            try await browser.execute("document.querySelector('#flow-panel').scrollIntoView();")
            try await browser.screenshot(to: "\(DashboardBrowserTests.artifacts)/dashboard-flow-call.png")
        }
    }
}
