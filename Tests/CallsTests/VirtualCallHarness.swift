import Bridge
import Foundation
import Logging
import Pipeline
import Realtime
import Simulation
import TestSupport
@testable import Calls

/// Whole calls in virtual time: the call manager, the local engine, the simulated callee and a
/// real SQLite store in one process, the two ends of each call joined in memory (`MemoryLeg`), all
/// on a `VirtualTimeExecutor`. Time moves only when every piece of work is done, so a verdict does
/// not depend on how busy the machine is, and a 30-s call costs only its CPU.
enum VirtualCallHarness {
    struct Run<T: Sendable>: Sendable {
        var value: T
        /// Virtual time the run took, and the real time it cost.
        var virtual: Duration
        var real: Duration
        /// Work that escaped the virtual time (should be none).
        var strayWakeups: Int

        var speedUp: Double { virtual / real }
    }

    /// `scheduler`: the media tick the calls' legs share, given when the body makes legs of its own
    /// (a media stream's `MediaStreamSocketLeg`).
    static func run<T: Sendable>(store given: CallStore? = nil, tweak: (inout CallManager.Settings) -> Void = { _ in }, engines: EngineFactory? = nil,
                                 scheduler: PacerScheduler<[UInt8]> = PacerScheduler(),
                                 logger: Logger = Logger(label: "virtual-calls"), _ body: @Sendable (CallManager, CallStore, CallClock) async throws -> T) async throws -> Run<T> {
        guard let (tts, stt) = CallHarness.speech else { throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "espeak-ng or Moonshine missing (make deps)"]) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vb-virtual-\(UUID().uuidString)")
        let store = try given ?? CallStore(path: folder.appendingPathComponent("db.sqlite").path)
        defer { try? FileManager.default.removeItem(at: folder) }
        let executor = VirtualTimeExecutor()
        let clock = CallClock(virtualTime: executor, datesFrom: Date())
        var uaConfig = SIPUserAgent.Configuration()
        uaConfig.rtpPorts = 40000...40001   // never started: the calls do not use SIP
        let ua = try SIPUserAgent(configuration: uaConfig, logger: Logger(label: "virtual-ua"))
        var settings = CallManager.Settings(gateway: SIPURI("sip:127.0.0.1:5060")!)
        settings.simulatedCallee = true
        settings.inProcessCallee = try SimulatedCallee(rtpPorts: 40000...40001, tts: tts, hearing: CallHarness.ear, clock: clock)
        settings.clock = clock
        settings.ringTimeout = .seconds(4)
        settings.retry.retryIntervalSeconds = 0
        settings.recordingsFolder = folder.appendingPathComponent("recordings").path
        settings.localVoice = LocalVoice(tts: tts)
        settings.neuralVAD = CallHarness.neuralVAD
        tweak(&settings)
        let manager = CallManager(settings: settings, store: store, userAgent: ua, scheduler: scheduler,
                                  engines: engines ?? CallSystem.localEngines(tts: tts, stt: stt, turns: CallHarness.turns), logger: logger)
        let started = ContinuousClock.now
        let value = try await executor.run {
            try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { await scheduler.run(clock: clock); return nil }
                group.addTask { await manager.run(); return nil }
                let value = try await body(manager, store, clock)
                group.cancelAll()
                return value
            }
        }
        return Run(value: value, virtual: executor.elapsed, real: started.duration(to: .now), strayWakeups: executor.strayWakeups)
    }

    /// Waits in virtual time until the call reaches a state that `done` accepts, looking every
    /// virtual 200 ms (bounded by `timeout` of virtual time).
    static func waitFor(_ store: CallStore, _ id: String, clock: CallClock, timeout: Duration = .seconds(300),
                        until done: (CallRecord) -> Bool) async throws -> CallRecord {
        let deadline = clock.now.advanced(by: timeout)
        var last: CallRecord?
        while clock.now < deadline {
            last = try await store.call(id: id)
            if let last, done(last) { return last }
            try await clock.sleep(for: .milliseconds(200))
        }
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "call \(id) is still \(String(describing: last?.state)) after \(timeout) of virtual time"])
    }

    /// A call's transcript and stored answers as text: what two runs of the same call must share, byte for byte.
    static func record(of id: String, in store: CallStore) async throws -> String {
        let call = try await store.call(id: id)
        let lines = try await store.transcript(callID: id).map { "\(String(format: "%.2f", $0.entry.timestamp)) \($0.entry.speaker.rawValue): \($0.entry.text)" }
        let answers = try await store.answers(callID: id).map { "\($0.questionID) \($0.status.rawValue) \($0.answerText ?? "-") | \($0.answerSummary ?? "-") (\(String(format: "%.2f", $0.confidence)))" }
        return (["state \(call?.state.rawValue ?? "-") \(call?.failureReason ?? "-")"] + lines + answers).joined(separator: "\n")
    }
}
