import Foundation
import Logging
import ServiceLifecycle
import Telemetry
import Testing
import Tracing
import TestLanes
import TestSupport
@testable import Calls

/// `telemetry.otlp_endpoint`: a whole call on the local engine, in virtual time, exported by the
/// server's OTLP/HTTP exporter to a receiver that decodes it with OpenTelemetry's own protobuf
/// definitions. One trace: the call queued, its attempt under it, the attempt's turns under it,
/// each turn's steps under the turn, in time order inside their parents, the same turns the stored
/// report has — and no number and no word the caller said in any attribute.
@Suite(.serialized, .tags(.virtualTime)) struct CallTraceTests {
    @Test func aCallIsOneTraceOfItsTurnsAndTheirSteps() async throws {
        try #require(OTLPReceiver.isInstalled, "opentelemetry-proto is missing (make deps)")
        let receiver = try await OTLPReceiver()
        defer { receiver.stop() }
        let request = CallHarness.seedRequest(answers: ["Yes, I can attend the meeting.", "No, the place is fine."])
        let (id, turns, said, spans) = try await OTLPReceiver.withTracing(endpoint: receiver.tracesURL) { tracing in
            let (id, turns, said) = try await VirtualCallHarness.run(tweak: { $0.tracer = tracing.tracer }) { manager, store, clock in
                let created = try await manager.create(request)
                let call = try await VirtualCallHarness.waitFor(store, created.outboundId, clock: clock) { $0.state.isTerminal }
                let report = try #require(try await store.report(callID: call.outboundId))
                let said = try await store.transcript(callID: call.outboundId).map(\.entry.text)
                return (call.outboundId, report.turns, said)
            }.value
            let spans = try await receiver.spans { spans in
                spans.filter { $0.name == "turn" }.count >= turns.count && spans.contains { $0.name == "call" } && spans.contains { $0.name == "call queued" }
            }
            return (id, turns, said, spans)
        }
        try #require(turns.count >= 2, "the call had its turns: \(turns.count)")
        #expect(receiver.errors.isEmpty, "\(receiver.errors)")

        let call = try #require(spans.first { $0.name == "call" })
        let queued = try #require(spans.first { $0.name == "call queued" })
        #expect(Set(spans.map(\.traceID)).count == 1 && queued.parentSpanID.isEmpty && call.parentSpanID == queued.spanID,
                "one trace: call queued its root, the attempt under it")
        #expect(queued.attributes["voicebridge.call.id"] as? String == id && queued.end <= call.start)
        #expect(call.attributes["voicebridge.call.id"] as? String == id && call.service == "voicebridge")
        #expect(call.attributes["voicebridge.call.turns"] as? Int == turns.count, "\(call.attributes)")
        #expect(call.attributes["voicebridge.call.state"] as? String == "completed" && call.attributes["voicebridge.call.attempt"] as? Int == 1
                && call.attributes["voicebridge.call.ending"] as? String == "agent_finished", "\(call.attributes)")
        let turnSpans = spans.filter { $0.name == "turn" }.sorted { $0.start < $1.start }
        #expect(turnSpans.map { $0.attributes["voicebridge.turn.number"] as? Int ?? 0 } == turns.map(\.turn))
        for turn in turnSpans {
            #expect(turn.parentSpanID == call.spanID && turn.start >= call.start && turn.end <= call.end, "a turn inside its call: \(turn)")
            let steps = spans.filter { $0.parentSpanID == turn.spanID }.sorted { $0.start < $1.start }
            // The offline engine says when it decided the turn was over: that is the first step.
            #expect(steps.first?.name == "end of turn" && steps.dropFirst().first?.name == "transcription" && steps.first?.start == turn.start
                    && steps.last?.end == turn.end, "the steps fill the turn: \(steps.map(\.name))")
            for (before, after) in zip(steps, steps.dropFirst()) {
                #expect(before.end == after.start && before.start <= before.end, "one step after the other: \(before.name) → \(after.name)")
            }
        }
        // Nothing said on the call, and neither number, in any attribute.
        let values = spans.flatMap { span in span.attributes.values.map { "\($0)" } + span.events.flatMap { ($0["attributes"] as? [String: Any] ?? [:]).values.map { "\($0)" } } }
        let private_ = [request.calleeNumber.filter(\.isNumber), request.callerNumber.filter(\.isNumber)] + said
        for value in values {
            #expect(!private_.contains { !$0.isEmpty && value.contains($0) }, "an attribute carries what it must not: \(value)")
        }
    }

    /// Every attempt of a call is in its one trace, under its "call queued" span: the attempt reads
    /// the context the call keeps, as a node taking the call over does. Here a line busy twice —
    /// for a call queued through the manager, and for one stored without a trace, as a campaign
    /// stores its calls (its first attempt gives it its "call queued").
    @Test(arguments: [false, true]) func everyAttemptOfACallIsInItsOneTrace(storedWithoutATrace: Bool) async throws {
        try #require(OTLPReceiver.isInstalled, "opentelemetry-proto is missing (make deps)")
        let receiver = try await OTLPReceiver()
        defer { receiver.stop() }
        let spans = try await OTLPReceiver.withTracing(endpoint: receiver.tracesURL) { tracing in
            let id = try await VirtualCallHarness.run(tweak: { $0.tracer = tracing.tracer; $0.retry.retryIntervalSeconds = 5 }) { manager, store, clock in
                var request = CallHarness.seedRequest(answers: ["<busy>"])
                request.maxRetries = 1
                let created = storedWithoutATrace ? try await store.insert(try await manager.record(for: request, requestedBy: "campaign")).call
                                                  : try await manager.create(request)
                #expect((created.traceParent == nil) == storedWithoutATrace)
                let call = try await VirtualCallHarness.waitFor(store, created.outboundId, clock: clock) { $0.state.isTerminal }
                #expect(call.state == .busy && call.attemptCount == 2, "\(call.state) after \(call.attemptCount)")
                return call.outboundId
            }.value
            return try await receiver.spans { spans in spans.filter { $0.name == "call" && $0.attributes["voicebridge.call.id"] as? String == id }.count == 2 }
        }
        #expect(spans.filter { $0.name == "call queued" }.count == 1, "one call queued for both attempts")
        let queued = try #require(spans.first { $0.name == "call queued" })
        let attempts = spans.filter { $0.name == "call" }.sorted { $0.start < $1.start }
        #expect(attempts.map { $0.attributes["voicebridge.call.attempt"] as? Int } == [1, 2])
        #expect(attempts.allSatisfy { $0.traceID == queued.traceID && $0.parentSpanID == queued.spanID }, "\(attempts)")
        #expect(attempts.allSatisfy { $0.attributes["voicebridge.call.state"] as? String == "busy" && $0.attributes["voicebridge.call.ending"] as? String == "busy" })
        #expect(Int64(attempts[1].start) - Int64(attempts[0].end) >= 5_000_000_000, "the second after the retry interval")
    }

    /// A collector that is down costs the spans, said through `failedExport`, and never the call.
    @Test func aCollectorThatIsDownCostsTheSpansNotTheCall() async throws {
        let closedPort = try freeTCPPort()
        let dropped = Locked(0)
        try await OTLPReceiver.withTracing(endpoint: "http://127.0.0.1:\(closedPort)/v1/traces", dropped: { spans in dropped.withLock { $0 += spans } }) { tracing in
            _ = try await VirtualCallHarness.run(tweak: { $0.tracer = tracing.tracer }) { manager, store, clock in
                let created = try await manager.create(CallHarness.seedRequest(answers: ["Yes, I can attend the meeting.", "No, the place is fine."]))
                let call = try await VirtualCallHarness.waitFor(store, created.outboundId, clock: clock) { $0.state.isTerminal }
                #expect(call.state == .completed && call.taskCompleted == true, "\(call.state) \(call.failureReason ?? "")")
            }
            // The call's spans (call, 2+ turns and their steps), counted as they are dropped.
            try await dropped.wait(for: "the dropped spans", timeout: .seconds(30)) { $0 >= 3 }
        }
    }
}

