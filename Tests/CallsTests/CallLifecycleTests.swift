import Bridge
import Foundation
import Pipeline
import Realtime
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// A call's life off the straight path, over whole calls in virtual time: the callee hangs up
/// mid-call, the operator cancels a connected call, a queued call outlives a restart, and an ended
/// call is dialed again as a new attempt, a busy line is tried again after its interval. What is stored is what an operator acts on: the partial
/// result is kept each time.
@Suite(.serialized, .tags(.virtualTime)) struct CallLifecycleTests {
    @Test func calleeHangingUpMidCallKeepsThePartialResult() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            let created = try await manager.create(CallHarness.seedRequest(answers: ["Yes, I can attend the meeting.", "<hangup>"]))
            let call = try await VirtualCallHarness.waitFor(store, created.outboundId, clock: clock) { $0.state.isTerminal }
            #expect(call.state == .completed && call.taskCompleted == false && call.failureReason == "remote_hangup")
            let answers = try await store.answers(callID: call.outboundId)
            #expect(answers.map(\.status) == [.answered, .pending], "asked and never answered stays pending: \(answers.map(\.status))")
            #expect(answers.first?.answerSummary == "yes")
            #expect(try await store.attempts(callID: call.outboundId).map(\.outcome) == ["completed"])
        }
    }

    /// "Yes, I can attend the meeting." — click: the hang-up comes before the agent's turn is over
    /// (the end-of-turn window still open), and the answer still counts. The engine heard those
    /// words well within the session's limit, and the log says nothing else (until 30 Nov the
    /// limit's cancelled sleep was taken for the limit coming: a warning on every hang-up).
    @Test func aCalleeWhoAnswersAndHangsUpAtOnceHasAnswered() async throws {
        let log = CapturedLog()
        _ = try await VirtualCallHarness.run(logger: log.logger()) { manager, store, clock in
            let created = try await manager.create(CallHarness.seedRequest(answers: ["Yes, I can attend the meeting. <hangup>"]))
            let call = try await VirtualCallHarness.waitFor(store, created.outboundId, clock: clock) { $0.state.isTerminal }
            #expect(call.state == .completed && call.failureReason == "remote_hangup")
            let answers = try await store.answers(callID: call.outboundId)
            #expect(answers.map(\.status) == [.answered, .notAsked], "the next question was never said: \(answers.map(\.status))")
            #expect(answers.first?.answerSummary == "yes")
            let heard = try await store.transcript(callID: call.outboundId).filter { $0.entry.speaker == .customer }.map(\.entry.text)
            #expect(heard.count == 1 && heard.first?.lowercased().contains("meeting") == true, "its words are in the transcript: \(heard)")
        }
        #expect(log.lines(containing: "call ended").count == 1, "the log is captured")
        #expect(log.lines(containing: "last words").isEmpty, "\(log.lines(containing: "last words").map(\.message))")
    }

    @Test func cancellingAConnectedCallSaysGoodbyeAndKeepsThePartialResult() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            let created = try await manager.create(CallHarness.seedRequest(answers: ["Yes, I can attend the meeting.", "No, the original location is fine."]))
            _ = try await VirtualCallHarness.waitFor(store, created.outboundId, clock: clock) { $0.state == .connected }
            try await clock.sleep(for: .seconds(2))
            try await manager.cancel(id: created.outboundId)
            let call = try await VirtualCallHarness.waitFor(store, created.outboundId, clock: clock) { $0.state.isTerminal }
            #expect(call.state == .cancelled && call.taskCompleted == false)
            let lines = try await store.transcript(callID: call.outboundId).filter { $0.entry.speaker == .ai }.map(\.entry.text)
            #expect(lines.last == "Thank you for your time. Have a nice day.", "\(lines)")
            #expect(try await store.answers(callID: call.outboundId).count == 2, "the partial result is stored")
            try await clock.sleep(for: .milliseconds(300))
            #expect(await manager.liveCount == 0, "nothing outlives the call")
        }
    }

    @Test func aQueuedCallSurvivesARestart() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vb-restart-\(UUID().uuidString)/db.sqlite").path
        let id: String
        do {
            let store = try CallStore(path: path)
            // First life: the call is queued, then the process stops before it is dialed.
            let manager = CallManager(settings: .init(gateway: SIPURI("sip:127.0.0.1:9")!), store: store,
                                      userAgent: try SIPUserAgent(configuration: .init()), scheduler: PacerScheduler(),
                                      engines: { _ in EchoEngine() }, logger: .init(label: "first-life"))
            id = try await manager.create(CallHarness.seedRequest(answers: ["<hangup>"])).outboundId
            try await store.close()
        }
        let reopened = try CallStore(path: path)
        try await reopened.reconcileAfterRestart(node: "n1")
        #expect(try await reopened.call(id: id)?.state == .queued)
        _ = try await VirtualCallHarness.run(store: reopened) { _, store, clock in
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock) { $0.state.isTerminal }
            #expect(call.state == .completed && call.attemptCount == 1, "dialed after the restart")
        }
    }

    @Test func anEndedCallCanBeRetriedAsANewAttempt() async throws {
        _ = try await VirtualCallHarness.run { manager, store, clock in
            let created = try await manager.create(CallHarness.seedRequest(answers: ["<reject>"]))
            _ = try await VirtualCallHarness.waitFor(store, created.outboundId, clock: clock) { $0.state == .rejected }
            try await clock.sleep(for: .milliseconds(300))
            let queued = try await manager.retry(id: created.outboundId)
            #expect(queued.state == .queued)
            let call = try await VirtualCallHarness.waitFor(store, created.outboundId, clock: clock) { $0.state == .rejected && $0.attemptCount == 2 }
            #expect(call.attemptCount == 2)
            do {
                _ = try await manager.retry(id: "ob-00000000")
                Issue.record("retrying an unknown call must fail")
            } catch let error as CallManager.Failure {
                #expect(error == .notFound("ob-00000000"))
            }
        }
    }

    /// A busy line is dialed again after the retry interval — five minutes of virtual time, which
    /// cost a fraction of a second: the wait, the queued call's due time and every stamp read the
    /// one clock (`CallClock.date`), so the stored gap is the interval exactly.
    @Test func aBusyLineIsTriedAgainAfterItsRetryIntervalOfVirtualTime() async throws {
        let run = try await VirtualCallHarness.run(tweak: { $0.retry.retryIntervalSeconds = 300 }) { manager, store, clock in
            let created = try await manager.create(CallHarness.seedRequest(answers: ["<busy>"], maxRetries: 1))
            let waiting = try await VirtualCallHarness.waitFor(store, created.outboundId, clock: clock) { $0.state == .queued && $0.attemptCount == 1 }
            let call = try await VirtualCallHarness.waitFor(store, created.outboundId, clock: clock, timeout: .seconds(600)) {
                $0.state == .busy && $0.attemptCount == 2
            }
            let attempts = try await store.attempts(callID: call.outboundId)
            #expect(attempts.map(\.outcome) == ["busy", "busy"], "one retry, then the final outcome: \(attempts.map(\.outcome))")
            let firstEnd = try #require(attempts.first?.endedAt)
            let due = try #require(waiting.nextAttemptAt)
            #expect(abs(due.timeIntervalSince(firstEnd) - 300) < 0.01, "due \(due.timeIntervalSince(firstEnd)) s after the first attempt ended")
            let gap = try #require(attempts.last?.startedAt).timeIntervalSince(firstEnd)
            #expect((299.99..<301).contains(gap), "dialed again \(gap) s after the first attempt ended")
        }
        #expect(run.strayWakeups == 0)
        #expect(run.virtual >= .seconds(300), "the interval passed in virtual time: \(run.virtual)")
        print("retry after 300 s: \(run.virtual) of virtual time in \(run.real) (\(Int(run.speedUp))×)")
    }
}
