@testable import Calls
import Dialogue
import Flows
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Realtime
import Testing
@testable import TestRuns

/// Test suites as YAML, what a finished call is held against, and how a run is reported.
struct TestSuiteTests {
    static let yaml = """
        name: meeting reminder
        template: meeting
        personas:
          - name: cooperative
            says: ["Yes, I can attend the meeting.", "No, the original location is fine."]
            expect:
              answers:
                - {status: answered, answer: "yes"}
                - {status: answered, answer: "no"}
              max_turns: 6
              turn_latency_ms: 1500
          - name: busy line
            says: ["<busy>"]
            expect: {state: busy}
        """

    @Test func aSuiteIsReadWithItsExpectations() throws {
        let suite = try TestSuite.parse(yaml: Self.yaml)
        #expect(suite.name == "meeting reminder" && suite.template == "meeting" && suite.personas.count == 2)
        let first = suite.personas[0]
        #expect(first.says == ["Yes, I can attend the meeting.", "No, the original location is fine."] && first.state == .completed)
        #expect(first.answers == [.init(status: .answered, answer: "yes"), .init(status: .answered, answer: "no")])
        #expect(first.maxTurns == 6 && first.turnLatencyMilliseconds == 1500)
        #expect(suite.personas[1].state == .busy && suite.personas[1].answers.isEmpty)
    }

    @Test(arguments: [
        ("name: x\npersonas: []", "personas: must list at least one persona"),
        ("personas: [{name: a, says: [hi]}]", "name: is required"),
        ("name: x\npersonas: [{name: a, says: [hi], expects: {state: busy}}]", "personas[0].expects: unknown key (expected one of expect, language, name, says)"),
        ("name: x\npersonas: [{name: a, says: [hi], expect: {state: ringing}}]", "personas[0].expect.state: \"ringing\" is not an end state"),
        ("name: x\npersonas: [{name: a, says: [hi], expect: {answers: [{status: yes}]}}]", "personas[0].expect.answers[0].status: \"yes\" is not one of"),
        ("name: x\npersonas: [{name: a, says: [hi], expect: {max_turns: 0}}]", "personas[0].expect.max_turns: must be a whole number above 0"),
        ("name: x\npersonas: [{name: a, says: [hi]}, {name: a, says: [ho]}]", "personas[1].name: \"a\" is used twice"),
        ("name: x\npersonas: [{name: a}]", "personas[0].says: must list the callee's lines"),
        ("name: [unclosed", "(file): not valid YAML"),
        ("name: x\npersonas: [{name: a, says: [hi], language: klingon}]", "personas[0].language: must be a voice espeak-ng has"),
    ])
    func aBadSuiteIsRefusedNamingWhere(yaml: String, problem: String) {
        #expect(throws: TestSuite.Problem.self) { try TestSuite.parse(yaml: yaml) }
        do { _ = try TestSuite.parse(yaml: yaml) } catch { #expect(error.description.hasPrefix(problem), "\(error.description)") }
    }

    @Test func aCallIsHeldAgainstWhatThePersonaExpects() throws {
        var persona = try TestSuite.parse(yaml: Self.yaml).personas[0]
        persona.answers[1] = .init(status: .answered, answer: "{today+1}T14:00")
        let now = Date()
        let tomorrow = CalleePersona.resolve("{today+1}T14:00", now: now, calendar: .current)
        let answers = [TaskTracker.Answer(questionID: "q1", question: "Can you attend?", status: .answered, answerText: "Yes, I can.", answerSummary: "yes", confidence: 0.9, timesAsked: 1),
                       TaskTracker.Answer(questionID: "q2", question: "When?", status: .unclear, answerText: "Who knows", answerSummary: nil, confidence: 0.2, timesAsked: 2)]
        let questions = ["Can you attend?", "When?"]
        let failures = TestRun.failures(persona, questions: questions, state: .completed, answers: answers, agentTurns: 7, turnLatencies: [900, 1700, 1800], now: now)
        #expect(failures == [
            .init(what: "When? status", expected: "answered", got: "unclear (heard \"Who knows\")"),
            .init(what: "When? answer", expected: tomorrow, got: "none (heard \"Who knows\")"),
            .init(what: "agent turns", expected: "at most 6", got: "7"),
            .init(what: "turn latency (median)", expected: "at most 1500 ms", got: "1700 ms"),
        ], "\(failures)")
        var met = answers
        met[1].status = .answered
        met[1].answerSummary = tomorrow
        #expect(TestRun.failures(persona, questions: questions, state: .completed, answers: met, agentTurns: 6, turnLatencies: [900], now: now).isEmpty)
        let busy = TestRun.failures(persona, questions: questions, state: .busy, answers: [], agentTurns: 0, turnLatencies: [], now: now)
        #expect(busy.first == .init(what: "state", expected: "completed", got: "busy") && busy.contains { $0.got == "not_asked" })
    }

    @Test func aFlowCallIsHeldAgainstItsOutcomeAndFields() throws {
        let suite = try TestSuite.parse(yaml: """
            name: open day
            personas:
              - name: two guests
                says: ["Yes.", "Two of us.", "Pasta, please."]
                expect:
                  outcome: registered
                  fields: {attending: "yes", guests: 2, meal: pasta, visit: "{today+1}T10:00", note: <empty>}
            """)
        let persona = suite.personas[0]
        #expect(persona.outcome == "registered" && persona.fields == ["attending": "yes", "guests": "2", "meal": "pasta", "visit": "{today+1}T10:00", "note": "<empty>"])
        let now = Date()
        let tomorrow = CalleePersona.resolve("{today+1}T10:00", now: now, calendar: .current)
        let fields: [String: FlowFieldValue] = ["attending": .init(kind: .yesNo, status: .answered, answer: "yes"), "guests": .init(kind: .number, status: .answered, answer: "2"),
                                                "meal": .init(kind: .choice, status: .refused), "visit": .init(kind: .dateTime, status: .answered, answer: tomorrow)]
        let failures = TestRun.failures(persona, questions: [], state: .completed, answers: [], agentTurns: 4, turnLatencies: [], outcome: "declined", fields: fields, now: now)
        #expect(failures == [.init(what: "outcome", expected: "registered", got: "declined"), .init(what: "field meal", expected: "pasta", got: "<refused>")], "\(failures)")
        var met = fields
        met["meal"] = .init(kind: .choice, status: .answered, answer: "pasta")
        #expect(TestRun.failures(persona, questions: [], state: .completed, answers: [], agentTurns: 4, turnLatencies: [], outcome: "registered", fields: met, now: now).isEmpty)
        #expect(throws: TestSuite.Problem.self) { try TestSuite.parse(yaml: "name: x\npersonas: [{name: a, says: [hi], expect: {fields: [guests]}}]") }
    }

    @Test func aPersonasLanguageIsTheVoiceOfEachSpokenLine() throws {
        let persona = try TestSuite.parse(yaml: "name: x\npersonas: [{name: a, language: ko, says: [\"<says 여보세요?>\", \"네, 갈게요.\", \"<dtmf 1> 일번.\", \"<silence>\"]}]").personas[0]
        #expect(persona.language == "ko")
        #expect(persona.script == ["<says 여보세요?>", "<voice ko> 네, 갈게요.", "<voice ko> <dtmf 1> 일번.", "<silence>"])
    }

    @Test func aRunIsATableAndWellFormedJUnit() throws {
        let result = TestRunResult(suite: "meeting <reminder>", template: "meeting", personas: [
            .init(name: "cooperative", callID: "ob-00000001", state: "completed", seconds: 21.5, failures: []),
            .init(name: "says \"no\" & <hangs up>", callID: "ob-00000002", state: "completed", seconds: 18.25,
                  failures: [.init(what: "Can you attend? answer", expected: "no", got: "yes (heard \"Yes\u{1}.\")")]),
        ])
        #expect(!result.passed)
        let table = result.table { "http://vb/#/calls/\($0)" }
        #expect(table.contains("1 of 2 passed"))
        #expect(table.contains("cooperative") && table.contains("PASS") && table.contains("FAIL"))
        #expect(table.contains("✗ Can you attend? answer: expected no, got yes") && table.contains("http://vb/#/calls/ob-00000002"))
        let xml = result.junitXML { "http://vb/#/calls/\($0)" }
        #expect(xml.contains(#"tests="2" failures="1""#) && xml.contains(#"name="says &quot;no&quot; &amp; &lt;hangs up&gt;""#) && !xml.contains("\u{1}"))
        let parser = XMLParser(data: Data(xml.utf8))
        #expect(parser.parse(), "well-formed: \(parser.parserError.map { "\($0)" } ?? "")")
        let decoded = try JSONDecoder().decode(TestRunResult.self, from: try JSONEncoder().encode(result))
        #expect(decoded == result)
        #expect(String(decoding: try JSONEncoder().encode(result), as: UTF8.self).contains(#""passed":false"#))
    }

    @Test func aKoreanPersonasRowLinesUpWithTheOthers() {
        // Hangul takes two columns in a terminal: padded by characters, the row after a Korean name
        // ran four columns to the right.
        let result = TestRunResult(suite: "s", template: "t", personas: [
            .init(name: "협조적인 고객", callID: "ob-00000001", state: "completed", seconds: 20, failures: []),
            .init(name: "cooperative", callID: "ob-00000002", state: "completed", seconds: 21, failures: []),
        ])
        let rows = result.table().split(separator: "\n").filter { $0.contains("PASS") || $0.contains("result") }
        let columns = rows.map { row in TerminalColumns.count(String(row[..<row.range(of: row.contains("result") ? "result" : "PASS")!.lowerBound])) }
        #expect(rows.count == 3)
        #expect(Set(columns).count == 1, "the result column starts at \(columns) in \(rows)")
        #expect(TerminalColumns.count("협조적인 고객") == 13 && TerminalColumns.count("e\u{301}") == 1)
    }
}
