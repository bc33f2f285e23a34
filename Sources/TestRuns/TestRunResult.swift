import Foundation

/// What a test run found, persona by persona: what `POST /api/tests` answers and the CLI prints.
public struct TestRunResult: Sendable, Codable, Equatable {
    public let suite: String
    public let template: String
    public let personas: [PersonaResult]
    /// Every persona passed.
    public let passed: Bool

    public init(suite: String, template: String, personas: [PersonaResult]) {
        self.suite = suite
        self.template = template
        self.personas = personas
        passed = personas.allSatisfy(\.passed)
    }

    public struct PersonaResult: Sendable, Codable, Equatable {
        public let name: String
        /// The call the persona was, where one was placed.
        public let callID: String?
        public let state: String
        public let seconds: Double
        public let failures: [Failure]
        /// No expectation was missed.
        public let passed: Bool

        enum CodingKeys: String, CodingKey {
            case name, callID = "call_id", state, seconds, failures, passed
        }

        public init(name: String, callID: String?, state: String, seconds: Double, failures: [Failure]) {
            self.name = name
            self.callID = callID
            self.state = state
            self.seconds = seconds
            self.failures = failures
            passed = failures.isEmpty
        }
    }

    /// One expectation the call did not meet.
    public struct Failure: Sendable, Codable, Equatable {
        public var what: String
        public var expected: String
        public var got: String

        public init(what: String, expected: String, got: String) {
            self.what = what
            self.expected = expected
            self.got = got
        }
    }
}
