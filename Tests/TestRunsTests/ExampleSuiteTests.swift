import Foundation
import Personas
import Testing
@testable import Calls
@testable import TestRuns

/// `examples/tests/meeting.yaml` is `make bench`'s meeting personas: the same lines and the same
/// expectations, persona by persona.
struct ExampleSuiteTests {
    @Test func theExampleSuiteIsTheBenchsMeetingPersonas() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples/tests/meeting.yaml")
        let suite = try TestSuite.parse(yaml: try String(contentsOf: file, encoding: .utf8))
        let meeting = CalleePersona.catalogue.filter { $0.questions == CalleePersona.meeting }
        #expect(suite.personas.map(\.name) == meeting.map(\.name))
        for (persona, bench) in zip(suite.personas, meeting) {
            let asBench = persona.asCalleePersona(questions: CalleePersona.meeting)
            #expect(asBench.script == bench.script && asBench.state == bench.state, "\(persona.name)")
            #expect(asBench.expected.map(\.status) == bench.expected.map(\.status) && asBench.expected.map(\.summary) == bench.expected.map(\.summary), "\(persona.name)")
        }
    }
}
