import Bridge
import Dialogue
import Foundation
import Pipeline
import Realtime
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// Seed 000's scenario, offline: local engine, simulated callee, real SIP and RTP on 127.0.0.1.
/// A whole spoken call in real time, so it runs with the real-time calls: in the shared pass,
/// beside four other suites on two cores, its 60 s went by before the call ended (CI, 7 Dec).
@Suite(.serialized, .tags(.realTimeCalls)) struct OutboundCallTests {
    @Test func seed000ScenarioCompletesWithBothAnswers() async throws {
        let prices: (inout CallManager.Settings) -> Void = { s in
            s.pricing.telephonyPerMinute = 0.6
            s.pricing.sttPerMinute = 1.2
            s.pricing.ttsPerMillionCharacters = 100
        }
        try await CallHarness.run(tweak: prices) { manager, store, ua in
            let created = try await manager.create(CallHarness.seedRequest(answers: ["Yes, I can attend the meeting.", "No, the original location is fine."]))
            #expect(created.state == .queued && created.callerNumber == "07012345678" && created.calleeNumber == "01098765432")
            let call = try await CallHarness.waitFor(store, created.outboundId) { $0.state.isTerminal }
            #expect(call.state == .completed, "ended as \(call.state) \(call.failureReason ?? "")")
            #expect(call.taskCompleted == true)
            let answers = try await store.answers(callID: call.outboundId)
            #expect(answers.map(\.status) == [.answered, .answered], "\(answers)")
            #expect(answers.map(\.answerSummary) == ["yes", "no"])
            let transcript = try await store.transcript(callID: call.outboundId)
            #expect(transcript.contains { $0.entry.speaker == .ai } && transcript.contains { $0.entry.speaker == .customer })
            #expect(transcript.first?.entry.text.hasPrefix("Hello, this is the AI assistant of ABC Company") == true)
            #expect(transcript.contains { $0.latencyMilliseconds != nil }, "turn latency is stored on agent lines")
            let states = try await store.events().filter { $0.outboundId == call.outboundId }.map(\.type).filter { $0.hasPrefix("outbound_") && $0 != "outbound_progress" }
            #expect(states == ["outbound_queued", "outbound_dialing", "outbound_ringing", "outbound_connected", "outbound_completed"])
            #expect(call.aiTurns ?? 0 >= 3 && call.customerTurns == 2)
            let recording = try #require(try await store.recordingPath(callID: call.outboundId))
            let wav = try WAVFile.read(URL(fileURLWithPath: recording))
            #expect(wav.channels == 2 && wav.sampleRate == 8000 && wav.data.count > 8000 * 4 * 5, "a stereo recording of the call")
            Self.checkTranscriptLinesUpWithTheRecording(transcript.map(\.entry), wav)
            _ = await manager.waitUntilNoLiveCalls(timeout: .seconds(30))
            let stillLive = await manager.liveCount
            #expect(ua.portPool.inUseCount == 0 && stillLive == 0, "nothing outlives the call: \(stillLive) live, \(ua.portPool.inUseCount) RTP ports held")
            try await Self.checkReport(store, call)
        }
    }

    /// Each transcript line is timed from when it began to be heard: in the recording (left the
    /// caller, right the agent) that side's sound starts within 300 ms of the line's time — not
    /// at the moment the line was written (an agent reply is written ~1–2 s before it is heard).
    static func checkTranscriptLinesUpWithTheRecording(_ lines: [TranscriptEntry], _ wav: WAVFile) {
        func onsets(_ samples: [Int16]) -> [Double] {   // 20 ms frames; a sound after ≥ 200 ms of quiet
            var result: [Double] = [], quiet = 10
            for start in stride(from: 0, to: samples.count - 160, by: 160) {
                let loud = samples[start..<(start + 160)].map { abs(Int($0)) }.max() ?? 0 > 800
                if loud, quiet >= 10 { result.append(Double(start) / 8000) }
                quiet = loud ? 0 : quiet + 1
            }
            return result
        }
        let caller = onsets(wav.channel(0)), agent = onsets(wav.channel(1))
        #expect(lines.count >= 5)
        for line in lines {
            let heard = line.speaker == .ai ? agent : caller
            let nearest = heard.min { abs($0 - line.timestamp) < abs($1 - line.timestamp) } ?? -1
            #expect(abs(nearest - line.timestamp) <= 0.3, "\(line.speaker) line at \(line.timestamp) s, sound starts at \(nearest) s: \(line.text)")
        }
    }

    /// The call's report: a timeline per agent turn, the stages' meters, usage and cost.
    /// The calls as one snapshot (one read): reading them one by one lets a call end and the next
    /// start between two reads, and a count of live calls would then see both.
    static func calls(_ ids: [String], in store: CallStore) async throws -> [CallRecord] {
        let byID = Dictionary(uniqueKeysWithValues: try await store.calls(inStates: CallState.allCases).map { ($0.outboundId, $0) })
        return ids.compactMap { byID[$0] }
    }

    static func checkReport(_ store: CallStore, _ call: CallRecord) async throws {
        let report = try #require(try await store.report(callID: call.outboundId))
        #expect(report.turns.count >= 2, "a reply to each answer: \(report.turns)")
        for turn in report.turns {
            let steps = [turn.transcriptMs, turn.replyStartedMs, turn.firstAudioMs, turn.firstFrameMs]
            #expect(steps.allSatisfy { $0 != nil }, "every step of a local turn is timed: \(turn)")
            let times = steps.compactMap { $0 }
            #expect(times == times.sorted(), "speech end → transcript → reply → audio → wire, in that order: \(turn)")
            #expect(turn.firstByteMs["stt"] != nil && turn.firstByteMs["tts"] != nil, "\(turn.firstByteMs)")
            #expect(turn.firstByteMs["stt"] ?? 0 >= 30, "the recognizer's time is its own, even when the turn ended on a transcript made earlier: \(turn.firstByteMs)")
            #expect(!turn.interrupted)
        }
        let latencies = try await store.transcript(callID: call.outboundId).compactMap(\.latencyMilliseconds)
        #expect(latencies == report.turns.compactMap(\.firstAudioMs), "the transcript's latencies are the turns' first audio")
        #expect(report.usage.sttSeconds > 1 && report.usage.ttsCharacters > 100, "\(report.usage)")
        #expect(abs(report.cost.stt - report.usage.sttSeconds / 60 * 1.2) < 1e-9)
        #expect(abs(report.cost.tts - Double(report.usage.ttsCharacters) / 1e6 * 100) < 1e-9)
        let seconds = Double(call.durationSeconds ?? 0)
        #expect(abs(report.cost.telephony - seconds / 60 * 0.6) <= 0.6 / 60 * 1.5, "telephony by the second: \(report.cost.telephony) for \(seconds) s")
        #expect(report.cost.total > 0 && report.cost.llm == 0 && report.cost.realtime == 0)
        let caller = report.stages.filter { $0.side == "caller" }
        #expect(caller.count == 6 && Set(caller.map(\.framesIn)).count == 1 && caller[0].framesIn > 100, "every caller frame through every stage: \(caller)")
        let totals = try await store.stats().reports
        #expect(totals.calls == 1 && totals.turns == report.turns.count && abs(totals.estimatedCost - report.cost.total) < 1e-9, "\(totals)")
    }
}

@Suite(.serialized) struct CallOutcomeTests {
    @Test func busyIsRetriedThenFinal() async throws {
        try await CallHarness.run { manager, store, _ in
            let created = try await manager.create(CallHarness.seedRequest(answers: ["<busy>"], maxRetries: 2))
            let call = try await CallHarness.waitFor(store, created.outboundId) { $0.state == .busy && $0.attemptCount == 3 }
            // The attempt's writes are all in once it is no longer live (a retry would have been
            // queued in the same transaction as its end).
            try #require(await manager.waitUntilNoLiveCalls(timeout: .seconds(30)), "the call is still live 30 s after it ended")
            let final = try #require(try await store.call(id: call.outboundId))
            #expect(final.state == .busy && final.attemptCount == 1 + 2, "attempt_count \(final.attemptCount)")
            let types = try await store.events().filter { $0.outboundId == call.outboundId }.map(\.type)
            #expect(types.filter { $0 == "outbound_busy" }.count == 3 && types.filter { $0 == "outbound_queued" }.count == 3)
            let attempts = try await store.attempts(callID: call.outboundId)
            #expect(attempts.map(\.attemptNumber) == [1, 2, 3] && attempts.allSatisfy { $0.outcome == "busy" && $0.endedAt != nil && $0.sipCallId != nil },
                    "every attempt kept with its outcome: \(attempts)")
        }
    }

    /// A retry waiting in the queue shows what the last attempt ended in; `retry_on_no_answer:
    /// false` means no automatic retry at all, busy included.
    @Test func aWaitingRetryShowsTheLastOutcomeAndRetryOffMeansNoRetry() async throws {
        try await CallHarness.run(tweak: { $0.retry.retryIntervalSeconds = 600 }) { manager, store, _ in
            let retried = try await manager.create(CallHarness.seedRequest(answers: ["<busy>"], maxRetries: 2))
            var noRetry = CallHarness.seedRequest(answers: ["<busy>"], maxRetries: 2, callee: "010 5555 0000")
            noRetry.retryOnNoAnswer = false
            let single = try await manager.create(noRetry)
            let waiting = try await CallHarness.waitFor(store, retried.outboundId) { $0.state == .queued && $0.attemptCount == 1 }
            #expect(waiting.lastOutcome == "busy" && waiting.nextAttemptAt.map { $0.timeIntervalSinceNow > 500 } == true)
            #expect(try await store.attempts(callID: retried.outboundId).map(\.outcome) == ["busy"])
            let final = try await CallHarness.waitFor(store, single.outboundId) { $0.state.isTerminal }
            // The attempt's writes are all in once it is no longer live (a retry would have been
            // queued in the same transaction as its end).
            try #require(await manager.waitUntilNoLiveCalls(timeout: .seconds(30)), "the call is still live 30 s after it ended")
            let after = try #require(try await store.call(id: single.outboundId))
            #expect(final.state == .busy && after.state == .busy && after.attemptCount == 1 && after.nextAttemptAt == nil, "\(after)")
        }
    }

    @Test func noAnswerAfterTheRingTimeout() async throws {
        try await CallHarness.run(tweak: { $0.ringTimeout = .seconds(2) }) { manager, store, _ in
            let start = Date()
            let created = try await manager.create(CallHarness.seedRequest(answers: ["<no_answer>"], maxRetries: 0))
            let call = try await CallHarness.waitFor(store, created.outboundId) { $0.state.isTerminal }
            #expect(call.state == .noAnswer && call.failureReason == "no_answer")
            #expect(Date().timeIntervalSince(start) >= 2)
        }
    }

    @Test func rejectedIsFinalWhenNotInRetryOn() async throws {
        try await CallHarness.run { manager, store, _ in
            let created = try await manager.create(CallHarness.seedRequest(answers: ["<reject>"]))
            let call = try await CallHarness.waitFor(store, created.outboundId) { $0.state.isTerminal }
            // The attempt's writes are all in once it is no longer live (a retry would have been
            // queued in the same transaction as its end).
            try #require(await manager.waitUntilNoLiveCalls(timeout: .seconds(30)), "the call is still live 30 s after it ended")
            let attempts = try await store.call(id: call.outboundId)?.attemptCount
            #expect(call.state == .rejected && attempts == 1)
        }
    }

    @Test func cancelWhileRinging() async throws {
        try await CallHarness.run { manager, store, ua in
            let created = try await manager.create(CallHarness.seedRequest(answers: ["<no_answer>"], maxRetries: 0))
            _ = try await CallHarness.waitFor(store, created.outboundId) { $0.state == .ringing }
            try await manager.cancel(id: created.outboundId)
            let call = try await CallHarness.waitFor(store, created.outboundId) { $0.state.isTerminal }
            #expect(call.state == .cancelled)
            do {
                try await manager.cancel(id: created.outboundId)
                Issue.record("cancelling an ended call must be refused")
            } catch let error as CallManager.Failure {
                #expect(error == .conflict("call \(created.outboundId) has already ended (cancelled)"))
            }
            try await waitUntil { ua.portPool.inUseCount == 0 }
            #expect(ua.portPool.inUseCount == 0, "the ringing call's RTP ports are given back")
        }
    }

    @Test func cancellingAQueuedCallDropsItFromTheQueue() async throws {
        try await CallHarness.run { manager, store, _ in
            var request = CallHarness.seedRequest()
            request.scheduledAt = Date().addingTimeInterval(3600)
            let created = try await manager.create(request)
            try await manager.cancel(id: created.outboundId)
            #expect(try await store.call(id: created.outboundId)?.state == .cancelled)
        }
    }
}

/// Seed 001's answer mode: a caller (sipp) reaches the agent, is greeted, and the call is stored.
@Suite(.serialized, .enabled(if: Sipp.isInstalled)) struct InboundCallTests {
    @Test func anInboundSIPCallIsAnsweredGreetedAndStored() async throws {
        try await CallHarness.run { _, store, ua in
            let port = await ua.localPort
            let sipp = try Sipp(arguments: ["-sn", "uac", "127.0.0.1:\(port)", "-s", "0212345678", "-i", "127.0.0.1",
                                            "-mp", "\(freeSippMediaPort())", "-d", "7000"])
            let result = await sipp.wait()
            #expect(result.status == 0, "\(result.output.suffix(1200))")
            try await waitUntil { (try? await store.calls(inStates: [.completed]).contains { $0.direction == .inbound }) == true }
            let inbound = try await store.calls(inStates: CallState.allCases).filter { $0.direction == .inbound }
            let call = try #require(inbound.first)
            #expect(call.state == .completed && call.calleeNumber == "0212345678")
            let transcript = try await store.transcript(callID: call.outboundId)
            #expect(transcript.first?.entry.speaker == .ai)
            #expect(transcript.first?.entry.text.hasPrefix("Hello, you have reached the AI assistant of VoiceBridge") == true, "\(transcript.map(\.entry.text))")
            #expect(try await store.events().contains { $0.outboundId == call.outboundId && $0.type == "inbound_connected" })
        }
    }
}

@Suite(.serialized) struct CallQueueOrderTests {
    @Test func higherPriorityIsDialedFirstThenOlderFirst() async throws {
        try await CallHarness.run(tweak: { $0.maxConcurrentCalls = 1 }) { manager, store, _ in
            let due = Date().addingTimeInterval(1)   // all become due together
            var ids: [String] = []
            for (n, priority) in [3, 9, 3].enumerated() {
                var request = CallHarness.seedRequest(answers: ["<reject>"], maxRetries: 0, callee: "0109876541\(n)")
                request.priority = priority
                request.scheduledAt = due
                ids.append(try await manager.create(request).outboundId)
            }
            var calls: [CallRecord] = []
            for id in ids { calls.append(try await CallHarness.waitFor(store, id) { $0.state == .rejected }) }
            let order = calls.sorted { $0.startedAt! < $1.startedAt! }.map(\.outboundId)
            #expect(order == [ids[1], ids[0], ids[2]], "priority 9 first, then the two 3s oldest first")
        }
    }
}
