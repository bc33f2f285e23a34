import Calls
import Dialogue
import Foundation
import Realtime
import Yams

/// A test suite for an agent (`voicebridge test`, `POST /api/tests`): simulated callees and what
/// each call must end with. YAML:
///
/// ```yaml
/// name: meeting reminder
/// personas:
///   - name: cooperative
///     says: ["Yes, I can attend the meeting.", "No, the original location is fine."]
///     language: en-gb                    # the espeak-ng voice it speaks in (default: en-us)
///     expect:
///       state: completed                 # the call's end state (default: completed)
///       answers:                         # one per question, in the template's order
///         - {status: answered, answer: "yes"}
///         - {status: answered, answer: "no"}
///       max_turns: 6                     # the agent spoke at most this often
///       turn_latency_ms: 1500            # median speech end → reply audio
///       outcome: registered              # a flow's end (its `end` step's outcome)
///       fields: {attending: "yes", guests: 3, meal: "<refused>"}   # a flow's fields
/// ```
///
/// `says` is the simulated callee's script: one line per agent turn, `<silence>`, `<hangup>`,
/// `<dtmf 12#> words`, `<says Hello?>` first (over the greeting), `<screens …>` first (a call screener), `<busy>`, `<no_answer>`, `<reject>`.
/// Answers and fields are normalised summaries (`yes`, `3`, `+15551234567`, `{today+1}T14:00`); a
/// field may instead be `<refused>`, `<unclear>` or `<empty>` (never filled).
public struct TestSuite: Sendable, Equatable {
    public var name: String
    public var template: String?
    public var personas: [Persona]

    public struct Persona: Sendable, Equatable {
        public var name: String
        public var says: [String]
        /// The espeak-ng voice the callee speaks in (`ko`, `de`, `es`…; nil: English).
        public var language: String?
        public var state: CallState
        /// Per question: the status, and the normalised answer (nil: not checked).
        public var answers: [ExpectedAnswer]
        public var maxTurns: Int?
        public var turnLatencyMilliseconds: Int?
        /// A flow's outcome label (nil: not checked).
        public var outcome: String?
        /// A flow's fields by name: the normalised answer, or `<refused>`, `<unclear>`, `<empty>`.
        public var fields: [String: String] = [:]
    }

    public struct ExpectedAnswer: Sendable, Equatable {
        public var status: TaskTracker.Status
        public var answer: String?
    }

    /// The most personas one suite may hold (each is a real call).
    public static let maxPersonas = 200

    /// What is wrong with a suite, naming where (`personas[2].expect.state`).
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    public static func parse(yaml: String) throws(Problem) -> TestSuite {
        let root: Node?
        do throws(BoundedYAML.Refusal) { try BoundedYAML.check(yaml) } catch { throw Problem(path: "(file)", message: error.message) }
        do { root = try Yams.compose(yaml: yaml) } catch { throw Problem(path: "(file)", message: "not valid YAML: \(error)") }
        guard let mapping = root?.mapping else { throw Problem(path: "(file)", message: "must be a mapping with name and personas") }
        try allowOnly(["name", "template", "personas"], in: mapping, at: "")
        let name = mapping["name"]?.string?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !name.isEmpty else { throw Problem(path: "name", message: "is required") }
        guard let list = mapping["personas"]?.sequence, !list.isEmpty else { throw Problem(path: "personas", message: "must list at least one persona") }
        guard list.count <= maxPersonas else { throw Problem(path: "personas", message: "at most \(maxPersonas) (each is a real call)") }
        var personas: [Persona] = []
        for (i, node) in list.enumerated() {
            let persona = try parsePersona(node, at: "personas[\(i)]")
            guard !personas.contains(where: { $0.name == persona.name }) else { throw Problem(path: "personas[\(i)].name", message: "\"\(persona.name)\" is used twice") }
            personas.append(persona)
        }
        return TestSuite(name: name, template: mapping["template"]?.string, personas: personas)
    }

    static func parsePersona(_ node: Node, at path: String) throws(Problem) -> Persona {
        guard let mapping = node.mapping else { throw Problem(path: path, message: "must be a mapping with name, says and expect") }
        try allowOnly(["name", "says", "language", "expect"], in: mapping, at: path)
        let name = mapping["name"]?.string?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !name.isEmpty else { throw Problem(path: path + ".name", message: "is required") }
        guard let lines = mapping["says"]?.sequence?.map({ $0.string }), !lines.isEmpty, lines.allSatisfy({ $0 != nil }) else {
            throw Problem(path: path + ".says", message: "must list the callee's lines (text, or <silence>, <hangup> …)")
        }
        var persona = Persona(name: name, says: lines.compactMap { $0 }, state: .completed, answers: [])
        if let node = mapping["language"] {
            guard let language = node.string, language.wholeMatch(of: /[a-z]{2,3}(-[a-z0-9]+)?/) != nil, (try? EspeakSynthesizer(voice: language)) != nil else {
                throw Problem(path: path + ".language", message: "must be a voice espeak-ng has (ko, de, es, fr, en-gb …)")
            }
            persona.language = language
        }
        guard let expect = mapping["expect"]?.mapping else { return persona }
        let at = path + ".expect"
        try allowOnly(["state", "answers", "max_turns", "turn_latency_ms", "outcome", "fields"], in: expect, at: at)
        if let raw = expect["state"]?.string {
            guard let state = CallState(rawValue: raw), !state.isLive, state != .queued else {
                throw Problem(path: at + ".state", message: "\"\(raw)\" is not an end state (completed, no_answer, busy, rejected, failed, cancelled, voicemail, voicemail_left, screened_out)")
            }
            persona.state = state
        }
        for (j, item) in (expect["answers"]?.sequence ?? []).enumerated() {
            guard let answer = item.mapping, let raw = answer["status"]?.string else { throw Problem(path: at + ".answers[\(j)]", message: "needs a status") }
            try allowOnly(["status", "answer"], in: answer, at: at + ".answers[\(j)]")
            guard let status = TaskTracker.Status(rawValue: raw) else {
                throw Problem(path: at + ".answers[\(j)].status", message: "\"\(raw)\" is not one of answered, refused, unclear, pending, not_asked")
            }
            persona.answers.append(ExpectedAnswer(status: status, answer: answer["answer"]?.string))
        }
        if let node = expect["outcome"] {
            guard let outcome = node.string, !outcome.isEmpty else { throw Problem(path: at + ".outcome", message: "must be the outcome label of one of the flow's end steps") }
            persona.outcome = outcome
        }
        if let node = expect["fields"] {
            guard let fields = node.mapping else { throw Problem(path: at + ".fields", message: "must map field names to their expected answers") }
            for (key, value) in fields {
                guard let name = key.string, !name.isEmpty, let answer = value.string, !answer.isEmpty else {
                    throw Problem(path: at + ".fields.\(key.string ?? "?")", message: "must be an answer (\"yes\", 3, \"{today+1}T14:00\") or <refused>, <unclear>, <empty>")
                }
                persona.fields[name] = answer
            }
        }
        persona.maxTurns = try positive(expect["max_turns"], at: at + ".max_turns")
        persona.turnLatencyMilliseconds = try positive(expect["turn_latency_ms"], at: at + ".turn_latency_ms")
        return persona
    }

    static func positive(_ node: Node?, at path: String) throws(Problem) -> Int? {
        guard let node else { return nil }
        guard let value = node.int, value > 0 else { throw Problem(path: path, message: "must be a whole number above 0") }
        return value
    }

    /// A misspelt key would silently check nothing: every key must be known.
    static func allowOnly(_ keys: Set<String>, in mapping: Node.Mapping, at path: String) throws(Problem) {
        for key in mapping.keys {
            guard let name = key.string, keys.contains(name) else {
                throw Problem(path: path.isEmpty ? (key.string ?? "?") : "\(path).\(key.string ?? "?")",
                              message: "unknown key (expected one of \(keys.sorted().joined(separator: ", ")))")
            }
        }
    }
}

extension TestSuite.Persona {
    /// The same comparison `make bench`'s personas use, for a template's questions.
    func asCalleePersona(questions: [String]) -> CalleePersona {
        CalleePersona(name: name, questions: questions, script: says, state: state, expected: answers.map { (status: $0.status, summary: $0.answer) })
    }
}

extension TestSuite.Persona {
    /// The callee's script: each spoken line in the persona's language (`<voice ko>`); lines that
    /// are a whole mark (`<silence>`, `<busy>`, `<says …>` …) as they are.
    var script: [String] {
        guard let language else { return says }
        return says.map { $0.wholeMatch(of: /<[a-z_]+( [^>]*)?>/) != nil ? $0 : "<voice \(language)> " + $0 }
    }
}
