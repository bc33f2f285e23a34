import Foundation
import Pipeline
import Realtime
import Synchronization
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// A burst of calls beyond what the engine can answer in time waits in the queue, and the calls
/// let in keep their turns under the goal: whole calls in virtual time, on a recognizer that is
/// slower for every call live (as the local engine is once the cores are full).
@Suite(.serialized, .tags(.virtualTime)) struct AdmissionCallTests {
    /// Each transcription first waits `perCall` for every call live: the time the calls' shared
    /// cores would take from it.
    struct LoadedRecognizer: SpeechRecognizer {
        let recognizer: any SpeechRecognizer
        let perCall: Duration
        let live: @Sendable () -> Int

        func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float) async throws -> Transcript {
            try await TaskClock().sleep(for: perCall * live())
            return try await recognizer.transcribe(pcm16k: samples, expecting: words, bias: bias)
        }
    }

    @Test func aBurstBeyondTheHeadroomIsQueuedNotSlowed() async throws {
        guard let (tts, stt) = CallHarness.speech else { throw CocoaError(.featureUnsupported) }
        let goal = 800, perCall = Duration.milliseconds(60), burst = 12
        let manager = Mutex<CallManager?>(nil)
        let loaded = LoadedRecognizer(recognizer: stt, perCall: perCall) { manager.withLock { $0?.liveCalls.load(ordering: .relaxed) ?? 0 } }
        var admission = CallAdmission.Settings(most: burst, start: 2, turnLatencyGoalMilliseconds: goal)
        admission.window = 3
        let run = try await VirtualCallHarness.run(tweak: { $0.engineAdmission = admission; $0.maxConcurrentCalls = burst },
                                                   engines: CallSystem.localEngines(tts: tts, stt: loaded, turns: CallHarness.turns)) { calls, store, clock in
            manager.withLock { $0 = calls }
            var ids: [String] = []
            for n in 0..<burst {
                let request = CallHarness.seedRequest(answers: ["Yes.", "No."], callee: String(format: "010987654%02d", n))
                ids.append(try await calls.create(request).outboundId)
            }
            var latencies: [Int] = []
            for id in ids {
                let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(600)) { $0.state.isTerminal }
                #expect(call.state == .completed, "\(id): \(call.state) \(call.failureReason ?? "")")
                latencies += try await store.transcript(callID: id).compactMap(\.latencyMilliseconds)
            }
            return (latencies.sorted(), await calls.mostLiveAtOnce, calls.admission?.reading)
        }
        let (latencies, mostLive, reading) = run.value
        // All twelve at once would have waited 12 × 60 ms in every transcription alone, close to the
        // goal before anything else in a turn (~250 ms here): over it.
        #expect(perCall * burst > .milliseconds(goal * 3 / 4))
        #expect(mostLive < burst, "the burst was let in whole (at most \(mostLive) live)")
        #expect(mostLive >= 4, "the limit did not rise from the 2 it started at as turns showed room (at most \(mostLive) live)")
        let slowest = try #require(latencies.last)
        #expect(slowest <= goal, "a turn took \(slowest) ms, over the goal: \(latencies)")
        #expect(reading.map { $0.limit >= 4 && $0.limit < burst } == true, "\(String(describing: reading))")
    }
}
