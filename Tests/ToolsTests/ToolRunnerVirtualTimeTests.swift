import Foundation
import Pipeline
import Synchronization
import Testing
@testable import Tools

/// The runner on the call's clock (`TaskClock`), in virtual time as a test run's calls are: a tool
/// that keeps the caller waiting gets its waiting line `ToolDefinition.waitBeforeSpeaking` into
/// that time, a line begun is said to its end before the answer is handed back, and a request to
/// the operator's server takes none of the time (it stands still while the server answers) and
/// comes back as no stray wake-up — so such a call is the same however fast the server was.
@Suite struct ToolRunnerVirtualTimeTests {
    /// A tool the server answers itself, `delay` later on the call's clock.
    struct SlowLookup: LocalTool {
        let delay: Duration
        func run(_ arguments: JSONValue) async -> LocalToolAnswer {
            try? await TaskClock().sleep(for: delay)
            return LocalToolAnswer(answer: .object(["found": .bool(true)]))
        }
    }

    /// The operator's server, answering after `delay` of real time.
    struct LateServer: ToolTransport {
        let delay: Duration
        func send(_ request: ToolHTTPRequest, timeout: Duration, bodyLimit: Int) async throws(ToolTransportFailure) -> ToolHTTPResponse {
            try? await Task.sleep(for: delay)
            return ToolHTTPResponse(status: 200, body: Array(#"{"slot":"10:30"}"#.utf8))
        }
    }

    static let lookup = ToolDefinition(name: "lookup", description: "Look something up.", url: "https://crm.example.com/lookup")
    static let lineLength = Duration.seconds(3)

    /// One tool call with a waiting line (said in `lineLength`), in a virtual time of its own:
    /// what came back, when the line began and when the answer was handed back (from the start),
    /// and the executor's stray wake-ups.
    static func call(_ runner: ToolRunner) async throws -> (outcome: ToolRunner.Outcome, line: Duration?, answered: Duration, strays: Int) {
        let time = VirtualTimeExecutor()
        let line = Mutex<Duration?>(nil)
        let (outcome, answered) = try await time.run {
            let outcome = await runner.call(Self.lookup, arguments: "{}") {
                line.withLock { $0 = time.elapsed }
                try? await TaskClock().sleep(for: Self.lineLength)
            }
            return (outcome, time.elapsed)
        }
        return (outcome, line.withLock { $0 }, answered, time.strayWakeups)
    }

    static let unreachable = ToolRunnerTests.ScriptedTransport { (_) throws(ToolTransportFailure) -> ToolHTTPResponse in throw .connectionFailed }

    @Test func aToolThatKeepsTheCallerWaitingGetsItsLineOnTheCallsClock() async throws {
        let runner = ToolRunner(transport: Self.unreachable, secrets: ToolSecrets())
        let slow = try await Self.call(runner.adding(SlowLookup(delay: .seconds(2)), named: "lookup"))
        #expect(slow.line == ToolDefinition.waitBeforeSpeaking, "the line began \(String(describing: slow.line)) in")
        #expect(slow.outcome.record.milliseconds == 2000 && slow.outcome.record.status == .ok, "\(slow.outcome.record)")
        #expect(slow.answered == ToolDefinition.waitBeforeSpeaking + Self.lineLength, "the answer waits for the line's end: \(slow.answered)")
        #expect(slow.strays == 0)

        let quick = try await Self.call(runner.adding(SlowLookup(delay: .milliseconds(500)), named: "lookup"))
        #expect(quick.line == nil, "no line for an answer within \(ToolDefinition.waitBeforeSpeaking)")
        #expect(quick.outcome.record.milliseconds == 500 && quick.answered == .milliseconds(500), "\(quick.outcome.record) at \(quick.answered)")
        #expect(quick.strays == 0)
    }

    @Test func theOperatorsServerAnswersWhileTheCallsTimeStandsStill() async throws {
        let late = try await Self.call(ToolRunner(transport: LateServer(delay: .milliseconds(300)), secrets: ToolSecrets()))
        #expect(late.outcome.answer == #"{"slot":"10:30"}"# && late.outcome.record.status == .ok, "\(late.outcome)")
        #expect(late.line == nil && late.answered == .zero && late.outcome.record.milliseconds == 0,
                "line \(String(describing: late.line)), answered at \(late.answered), \(late.outcome.record.milliseconds) ms")
        #expect(late.strays == 0, "the server's answer came back as \(late.strays) stray wake-ups")
    }
}
