import Foundation

/// What a test run found, persona by persona: what `POST /api/tests` answers and the CLI prints.
public struct TestRunResult: Sendable, Codable, Equatable {
    public var suite: String
    public var template: String
    public var personas: [PersonaResult]
    public var passed: Bool { personas.allSatisfy(\.passed) }

    public struct PersonaResult: Sendable, Codable, Equatable {
        public var name: String
        /// The call the persona was, where one was placed.
        public var callID: String?
        public var state: String
        public var seconds: Double
        public var failures: [Failure]
        public var passed: Bool { failures.isEmpty }

        enum CodingKeys: String, CodingKey {
            case name, callID = "call_id", state, seconds, failures, passed
        }

        public init(name: String, callID: String?, state: String, seconds: Double, failures: [Failure]) {
            self.name = name
            self.callID = callID
            self.state = state
            self.seconds = seconds
            self.failures = failures
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(name: try c.decode(String.self, forKey: .name), callID: try c.decodeIfPresent(String.self, forKey: .callID),
                      state: try c.decode(String.self, forKey: .state), seconds: try c.decode(Double.self, forKey: .seconds),
                      failures: try c.decode([Failure].self, forKey: .failures))
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encodeIfPresent(callID, forKey: .callID)
            try c.encode(state, forKey: .state)
            try c.encode(seconds, forKey: .seconds)
            try c.encode(failures, forKey: .failures)
            try c.encode(passed, forKey: .passed)
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

    enum CodingKeys: String, CodingKey { case suite, template, personas, passed }

    public init(suite: String, template: String, personas: [PersonaResult]) {
        self.suite = suite
        self.template = template
        self.personas = personas
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(suite: try c.decode(String.self, forKey: .suite), template: try c.decode(String.self, forKey: .template),
                  personas: try c.decode([PersonaResult].self, forKey: .personas))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(suite, forKey: .suite)
        try c.encode(template, forKey: .template)
        try c.encode(personas, forKey: .personas)
        try c.encode(passed, forKey: .passed)
    }
}
