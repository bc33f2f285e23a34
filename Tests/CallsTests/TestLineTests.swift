import Bridge
import Foundation
import Logging
import Pipeline
import Realtime
import Simulation
import Testing
import TestLanes
import TestRuns
@testable import Calls

/// A test run (`voicebridge test`) on the line the server gives it (`TestLine`): the personas'
/// calls run in virtual time beside a call manager that is not running, against the real store,
/// and the same suite gives the same calls, byte for byte.
@Suite(.serialized, .tags(.virtualTime)) struct TestLineTests {
    static let suite = """
        name: line check
        personas:
          - name: agrees
            says: ["Yes, I can attend the meeting.", "No, the original location is fine."]
            expect:
              answers:
                - {status: answered, answer: "yes"}
          - name: expects the other answer
            says: ["Yes, I can attend the meeting.", "No, the original location is fine."]
            expect:
              answers:
                - {status: answered, answer: "no"}
        """

    /// One run of the suite on a fresh store: its result, each call's record, and the line.
    static func testRun(time: TestLine.Time = .virtual) async throws -> (TestRunResult, [String], TestLine) {
        guard let (tts, stt) = CallHarness.speech else { throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "espeak-ng or Moonshine missing (make deps)"]) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vb-test-line-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CallStore(path: folder.appendingPathComponent("db.sqlite").path)
        _ = try await store.createTemplate(CallTemplate(name: "meeting", purpose: "tomorrow's 2 pm meeting",
                                                        questions: ["Can you attend?", "Does the place need to change?"]))
        var uaConfig = SIPUserAgent.Configuration()
        uaConfig.rtpPorts = 40000...40001   // never started: a test line's calls use no SIP
        let ua = try SIPUserAgent(configuration: uaConfig, logger: Logger(label: "test-line-ua"))
        var settings = CallManager.Settings(gateway: SIPURI("sip:127.0.0.1:5060")!)
        settings.simulatedCallee = true
        settings.recordingsFolder = folder.appendingPathComponent("recordings").path
        settings.localVoice = LocalVoice(tts: tts)
        settings.neuralVAD = CallHarness.neuralVAD
        let main = CallManager(settings: settings, store: store, userAgent: ua, scheduler: PacerScheduler<[UInt8]>(),
                               engines: CallSystem.localEngines(tts: tts, stt: stt, turns: CallHarness.turns), logger: Logger(label: "test-line"))
        let callee = try SimulatedCallee(rtpPorts: 40000...40001, tts: tts, hearing: CallHarness.ear)
        let line = try TestLine(beside: main, callee: callee, time: time)
        let run = try TestRun(suite: try TestSuite.parse(yaml: suite), template: "meeting", parallel: 2)
        let result = try await run.run(on: line, store: store)
        var records: [String] = []
        for persona in result.personas {
            records.append(try await VirtualCallHarness.record(of: try #require(persona.callID), in: store))
        }
        return (result, records, line)
    }

    @Test(.timeLimit(.minutes(5))) func aSuiteRunsInVirtualTimeAndTwiceGivesTheSameCalls() async throws {
        let (first, firstRecords, line) = try await Self.testRun()
        print(first.table(), firstRecords.joined(separator: "\n\n"))
        #expect(line.time == .virtual)
        #expect(line.strayWakeups == 0, "work escaped the virtual time")
        #expect(first.timing?.time == "virtual")
        #expect(first.personas.map(\.state) == ["completed", "completed"])
        #expect(first.personas.map(\.passed) == [true, false])
        #expect(first.personas[1].failures.map { "\($0.what): \($0.expected)" } == ["Can you attend? answer: no"])
        #expect(first.personas[1].failures.first?.got.hasPrefix("yes") == true)
        // Each persona's length is its call's, on the line's clock: a whole conversation, not the CPU it cost.
        #expect(first.personas.allSatisfy { $0.seconds > 5 })
        let (second, secondRecords, _) = try await Self.testRun()
        #expect(second.personas.map(\.failures) == first.personas.map(\.failures))
        #expect(second.personas.map(\.seconds) == first.personas.map(\.seconds))
        #expect(secondRecords == firstRecords, "the second run's calls differ from the first's")
    }

    @Test func anEngineElsewhereRunsTheLineInRealTime() throws {
        var settings = CallManager.Settings(gateway: SIPURI("sip:127.0.0.1:5060")!)
        settings.engineMode = "realtime"
        var uaConfig = SIPUserAgent.Configuration()
        uaConfig.rtpPorts = 40000...40001
        let ua = try SIPUserAgent(configuration: uaConfig, logger: Logger(label: "test-line-ua"))
        let store = try CallStore(path: FileManager.default.temporaryDirectory.appendingPathComponent("vb-test-line-\(UUID().uuidString)/db.sqlite").path)
        let main = CallManager(settings: settings, store: store, userAgent: ua, scheduler: PacerScheduler<[UInt8]>(),
                               engines: { _ in throw CocoaError(.featureUnsupported) }, logger: Logger(label: "test-line"))
        let callee = try SimulatedCallee(rtpPorts: 40000...40001, tts: try EspeakSynthesizer())
        #expect(try TestLine(beside: main, callee: callee, time: .virtual).time == .real)
        settings.engineMode = "local"
        let local = CallManager(settings: settings, store: store, userAgent: ua, scheduler: PacerScheduler<[UInt8]>(),
                                engines: { _ in throw CocoaError(.featureUnsupported) }, logger: Logger(label: "test-line"))
        #expect(try TestLine(beside: local, callee: callee, time: .virtual).time == .virtual)
        #expect(try TestLine(beside: local, callee: callee, time: .real).time == .real)
    }
}
