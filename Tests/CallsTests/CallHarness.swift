import Bridge
import Foundation
import Logging
import Pipeline
import Realtime
import Simulation
import Synchronization
import TestSupport
@testable import Calls

/// A whole VoiceBridge minus HTTP: a real SQLite file, our SIP user agent, the simulated callee
/// on its own port, the local engine, and the call manager — all on 127.0.0.1, all owned by one
/// task group that the harness cancels at the end.
enum CallHarness {
    static let speech: (EspeakSynthesizer, MoonshineTranscriber)? = {
        guard let tts = try? EspeakSynthesizer(), let stt = try? MoonshineTranscriber(directory: Fixtures.moonshine) else { return nil }
        return (tts, stt)
    }()

    /// One ear for every simulated callee in the test process, as the server has one callee: the
    /// harnesses running side by side do not each add lanes of the recognizer to a busy machine.
    static let ear = speech.map { SimulatedCallee.hearing($0.1) }

    static let neuralVAD = try? SileroModel.installed(in: Fixtures.repository.appendingPathComponent(".deps").path)
    /// What `engine.turn_detection: auto` gives the local engine: Smart Turn when installed.
    static let turns = (try? CallSystem.turnDetector(for: TurnDetectionChoiceTests.engine(.auto), logger: Logger(label: "test"))) ?? .pause

    static func run<T: Sendable>(store: CallStore? = nil, tweak: (inout CallManager.Settings) -> Void = { _ in },
                                 userAgent tweakUserAgent: (inout SIPUserAgent.Configuration) -> Void = { _ in }, engines: EngineFactory? = nil,
                                 _ body: @Sendable (CallManager, CallStore, SIPUserAgent) async throws -> T) async throws -> T {
        // Moonshine is loaded only for the local engine: a test that brings its own engine does
        // not wait for the model.
        guard let tts = try? EspeakSynthesizer() else { throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "espeak-ng missing (make deps)"]) }
        let engines = try engines ?? {
            guard let (tts, stt) = speech else { throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "espeak-ng or Moonshine missing (make deps)"]) }
            return CallSystem.localEngines(tts: tts, stt: stt, turns: turns)
        }()
        let store = try store ?? CallStore(path: FileManager.default.temporaryDirectory.appendingPathComponent("vb-calls-\(UUID().uuidString)/db.sqlite").path)
        var uaConfig = SIPUserAgent.Configuration()
        uaConfig.port = 0
        uaConfig.rtpPorts = TestPorts.rtp
        tweakUserAgent(&uaConfig)
        let ua = try SIPUserAgent(configuration: uaConfig, logger: Logger(label: "test-ua"))
        try await ua.start()
        let callee = try SimulatedCallee(rtpPorts: TestPorts.rtp, tts: tts, hearing: ear)
        let calleePort = try await callee.start()
        var settings = CallManager.Settings(gateway: SIPURI("sip:127.0.0.1:\(calleePort)")!)
        settings.simulatedCallee = true
        // The callee answers after 1 s of ringing; 4 s of ring timeout went by before its answer was
        // handled beside two busy loops, four unit tests and three e2e suites (4 Dec), and the call
        // was retried. What a ring timeout does is `noAnswerAfterTheRingTimeout`'s, with its own.
        settings.ringTimeout = .seconds(10)
        settings.retry.retryIntervalSeconds = 0
        settings.recordingsFolder = store.shared.database is PostgresStoreDatabase
            ? FileManager.default.temporaryDirectory.appendingPathComponent("vb-recordings-\(UUID().uuidString)").path
            : (store.path as NSString).deletingLastPathComponent + "/recordings"
        settings.localVoice = LocalVoice(tts: tts)
        settings.neuralVAD = neuralVAD   // what `engine.vad: auto` gives the local engine
        tweak(&settings)
        let scheduler = PacerScheduler<[UInt8]>()
        let manager = CallManager(settings: settings, store: store, userAgent: ua, scheduler: scheduler,
                                  engines: engines, logger: Logger(label: "test-calls"))
        let services = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await ua.run() }
                group.addTask { await callee.run() }
                group.addTask { await scheduler.run(clock: ContinuousClock()) }
                group.addTask { await manager.run() }
            }
        }
        do {
            let result = try await body(manager, store, ua)
            services.cancel()
            await services.value
            return result
        } catch {
            services.cancel()
            await services.value
            throw error
        }
    }

    /// Waits until the call reaches a state that `done` accepts (bounded).
    static func waitFor(_ store: CallStore, _ id: String, timeout: Duration = .seconds(60), until done: (CallRecord) -> Bool) async throws -> CallRecord {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if let call = try await store.call(id: id), done(call) { return call }
            // A change of the call's state appends an event, which wakes this at once (so do the
            // other calls' events: a few a second). No faster than that: each look decodes a stored
            // call, and at 20 a second a busy call step's waiters spent a tenth of the machine on it (perf).
            await store.waitForEvents(timeout: .milliseconds(200))
        }
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "call \(id) is still \(await String(describing: try store.call(id: id)?.state))"])
    }

    static func seedRequest(answers: [String]? = nil, maxRetries: Int? = nil, questions: [String] = ["Can you attend?", "Does the place need to change?"],
                            callee: String = "010 9876 5432") -> OutboundCallRequest {
        var metadata: String?
        if let answers, let data = try? JSONSerialization.data(withJSONObject: ["simulated_answers": answers]) { metadata = String(decoding: data, as: UTF8.self) }
        return OutboundCallRequest(callerNumber: "070-1234-5678", calleeNumber: callee, purpose: "tomorrow's 2 pm meeting",
                                   questions: questions, callerDisplayName: "ABC Company", maxDuration: 120, maxRetries: maxRetries, metadata: metadata)
    }
}
