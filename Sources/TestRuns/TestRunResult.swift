import Foundation

/// What a test run found, persona by persona: what `POST /api/tests` answers and the CLI prints.
public struct TestRunResult: Sendable, Codable, Equatable {
    public let suite: String
    public let template: String
    public let personas: [PersonaResult]
    /// Every persona passed.
    public let passed: Bool
    /// The clock the calls ran on, and how long the run took on it and in real time.
    public let timing: Timing?
    /// The line the calls ran over when it was not clean ("babble at 10 dB"; `LineCondition`).
    public let line: String?

    public init(suite: String, template: String, personas: [PersonaResult], timing: Timing? = nil, line: String? = nil) {
        self.suite = suite
        self.template = template
        self.personas = personas
        self.timing = timing
        self.line = line
        passed = personas.allSatisfy(\.passed)
    }

    public struct Timing: Sendable, Codable, Equatable {
        /// `virtual` (as fast as the CPU allows) or `real`.
        public var time: String
        /// The run's length on its calls' clock, and in real time.
        public var callSeconds: Double
        public var realSeconds: Double

        enum CodingKeys: String, CodingKey { case time, callSeconds = "call_seconds", realSeconds = "real_seconds" }

        public init(time: String, callSeconds: Double, realSeconds: Double) {
            self.time = time
            self.callSeconds = callSeconds
            self.realSeconds = realSeconds
        }

        /// How many times faster than real time the calls ran.
        public var speedUp: Double { realSeconds > 0 ? callSeconds / realSeconds : 1 }
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
