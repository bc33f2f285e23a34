import Flows
import Foundation
import Testing
import TestSupport
@testable import Calls

/// The example flows in `examples/flows` (seed 004's salon scenario; a Korean clinic booking)
/// read as YAML the way the API reads the dashboard's editor, and pass every check.
@Suite struct FlowExamplesTests {
    @Test(arguments: ["salon-booking.yaml", "clinic-booking-ko.yaml"]) func anExampleFlowIsValid(name: String) throws {
        let text = try String(contentsOf: Fixtures.repository.appendingPathComponent("examples/flows/\(name)"), encoding: .utf8)
        let flow = try FlowSource.text(text).flow()
        #expect(flow.problems() == [])
        #expect(flow.steps.count >= 12 && flow.steps.filter { $0.branch != nil }.count >= 3)
        let template = try CallTemplate(name: name, purpose: "booking", questions: [], flow: flow).validated(engineModes: ["local"])
        #expect(template.questions.count == flow.asks.count)
    }

    @Test func yamlMistakesAreNamed() {
        #expect(throws: ValidationError(fields: [.init(name: "flow", message: "is not a flow: steps.0.kind: Cannot initialize FlowFieldKind from invalid String value maybe")])) {
            try FlowSource.text("start: a\nsteps:\n  - {id: a, ask: Hi?, field: f, kind: maybe, next: b}\n").flow()
        }
    }
}
