import Calls
import Dialogue
import Flows
import Foundation
import Realtime

/// Runs a suite against a template: every persona is a real call through the server's own call
/// path — session, engine, store — to the built-in simulated callee, which says the persona's
/// lines over a `TestLine` (in virtual time where the agent runs in this process), and the stored
/// result is held against what the persona expects.
public struct TestRun: Sendable {
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    public let suite: TestSuite
    public let template: String
    /// Calls at a time, 1…10.
    public let parallel: Int
    public let callerNumber: String

    public init(suite: TestSuite, template: String? = nil, parallel: Int = 1, callerNumber: String = "0000000000") throws(Refusal) {
        guard let template = template ?? suite.template, !template.isEmpty else {
            throw Refusal(description: "name the template to test (--template, or template: in the suite)")
        }
        guard (1...10).contains(parallel) else { throw Refusal(description: "parallel must be 1 to 10") }
        self.suite = suite
        self.template = template
        self.parallel = parallel
        self.callerNumber = callerNumber
    }

    /// A persona that expects a turn latency needs the run in real time: virtual time only models it.
    public var measuresTurnLatency: Bool { suite.personas.contains { $0.turnLatencyMilliseconds != nil } }

    /// The template the suite runs against, as stored.
    public func template(in store: CallStore) async throws -> CallTemplate {
        guard let found = try await store.template(template) else { throw Refusal(description: "no template \(template)") }
        return found
    }

    /// Places every persona's call on `line`, `parallel` at a time; `progress` hears each
    /// persona's result as it comes.
    public func run(on line: TestLine, store: CallStore, progress: @escaping @Sendable (TestRunResult.PersonaResult) async -> Void = { _ in }) async throws -> TestRunResult {
        let found = try await template(in: store)
        let started = Date()
        let (personas, elapsed) = try await line.run {
            try await withThrowingTaskGroup(of: (Int, TestRunResult.PersonaResult).self) { group in
                var results: [(Int, TestRunResult.PersonaResult)] = []
                var next = 0
                func addNext() {
                    guard next < suite.personas.count else { return }
                    let index = next
                    next += 1
                    group.addTask { (index, try await self.call(suite.personas[index], number: index, questions: found.questions, line: line, store: store, now: started)) }
                }
                for _ in 0..<parallel { addNext() }
                while let finished = try await group.next() {
                    results.append(finished)
                    await progress(finished.1)
                    addNext()
                }
                return results.sorted { $0.0 < $1.0 }.map(\.1)
            }
        }
        return TestRunResult(suite: suite.name, template: found.name, personas: personas,
                             timing: .init(time: line.time.rawValue, callSeconds: elapsed.callTime.totalSeconds, realSeconds: elapsed.realTime.totalSeconds),
                             line: line.condition.map(\.description))
    }

    func call(_ persona: TestSuite.Persona, number: Int, questions: [String], line: TestLine, store: CallStore, now: Date) async throws -> TestRunResult.PersonaResult {
        let started = line.now
        var request = OutboundCallRequest(callerNumber: callerNumber, calleeNumber: String(format: "0100000%04d", number), purpose: "", questions: [],
                                          metadata: String(decoding: try JSONSerialization.data(withJSONObject: ["simulated_answers": persona.script, "test_suite": suite.name, "test_persona": persona.name]), as: UTF8.self))
        request.template = template
        request.retryOnNoAnswer = false
        request.maxRetries = 0
        let call: CallRecord
        do {
            call = try await line.manager.placeNow(request, requestedBy: "test run")
        } catch {
            return .init(name: persona.name, callID: nil, state: "not placed", seconds: 0,
                         failures: [.init(what: "call", expected: "placed", got: "\(error)")])
        }
        let id = call.outboundId
        let seconds = started.duration(to: line.now).totalSeconds
        guard call.state.isTerminal else {
            return .init(name: persona.name, callID: id, state: call.state.rawValue, seconds: seconds,
                         failures: [.init(what: "state", expected: persona.state.rawValue, got: "\(call.state.rawValue) when its attempt ended")])
        }
        let answers = try await store.answers(callID: id)
        let report = try await store.report(callID: id)
        let agentTurns = try await store.transcript(callID: id).filter { $0.entry.speaker == .ai && !$0.entry.text.hasPrefix("[") }.count
        let failures = Self.failures(persona, questions: questions, state: call.state, answers: answers, agentTurns: agentTurns,
                                     turnLatencies: report?.turns.compactMap(\.firstAudioMs) ?? [],
                                     outcome: call.outcome, fields: try CallFlowResult(stored: call.flowResult)?.fields ?? [:], now: now)
        return .init(name: persona.name, callID: id, state: call.state.rawValue, seconds: seconds, failures: failures)
    }

    /// Each expectation the call missed, as expected vs got.
    static func failures(_ persona: TestSuite.Persona, questions: [String], state: CallState, answers: [TaskTracker.Answer],
                         agentTurns: Int, turnLatencies: [Int], outcome: String? = nil, fields: [String: FlowFieldValue] = [:],
                         now: Date) -> [TestRunResult.Failure] {
        // State, statuses and answers as `make bench` compares its personas.
        var failures = persona.asCalleePersona(questions: questions).compare(state: state, answers: answers, now: now).differences.map { d in
            let question = d.question.map { questions.indices.contains($0) ? questions[$0] : "q\($0 + 1)" }
            let what = switch d.aspect {
            case .state: "state"
            case .status: "\(question ?? "") status"
            case .answer: "\(question ?? "") answer"
            }
            return TestRunResult.Failure(what: what, expected: d.expected, got: d.got + (d.heard.map { " (heard \"\($0)\")" } ?? ""))
        }
        if let expected = persona.outcome, expected != outcome {
            failures.append(.init(what: "outcome", expected: expected, got: outcome ?? "none"))
        }
        for (name, expected) in persona.fields.sorted(by: { $0.key < $1.key }) {
            let field = fields[name]
            let got = field.map { $0.status == .answered ? $0.answer ?? "" : "<\($0.status.rawValue)>" } ?? "<empty>"
            let want = CalleePersona.resolve(expected, now: now, calendar: .current)
            if got != want { failures.append(.init(what: "field \(name)", expected: want, got: got)) }
        }
        if let most = persona.maxTurns, agentTurns > most {
            failures.append(.init(what: "agent turns", expected: "at most \(most)", got: "\(agentTurns)"))
        }
        if let limit = persona.turnLatencyMilliseconds, !turnLatencies.isEmpty {
            let median = turnLatencies.sorted()[turnLatencies.count / 2]
            if median > limit { failures.append(.init(what: "turn latency (median)", expected: "at most \(limit) ms", got: "\(median) ms")) }
        }
        return failures
    }
}
