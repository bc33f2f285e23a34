import Foundation
import Synchronization
import TraceContext
import Tracing

/// One attempt of a call as an OpenTelemetry span, live from its start (dialling; an inbound
/// call's answer) to its end, so that every request made during it carries its trace
/// (`traceParent`, set for the attempt's tasks). Its turns are spans under it, made from the
/// call's report when the call ends — the same turn timeline the report, `/metrics` and the
/// dashboard show, so the four never disagree, and no span is made while audio flows:
///
/// ```
/// call queued (producer, 0 s)        under the request's own trace when it sent a traceparent
///   call (dial or answer → end)      voicebridge.call.id, .direction, .attempt, .state, .ending, .turns, .barge_ins; barge-in events
///     turn (speech end → first frame)  voicebridge.turn.number, .interrupted, .heard_ms, .generated_ms, .first_byte_ms.<provider>
///       transcription                speech end → the caller's words as text
///       reply                        → the reply began (the model's first token, the scripted reply)
///       synthesis                    → its first audio
///       playout                      → its first frame to the leg
/// ```
///
/// An outbound call's attempts are all under its "call queued" span, whose context the call
/// keeps (`CallRecord.traceParent`): a retry, or another node taking the call over, continues
/// the same trace. Times are the call's clock's dates (virtual time in a test run is traced as
/// it ran there). Nothing a caller said and no number is an attribute: the call's id finds the rest.
public final class CallSpan: Sendable {
    let tracer: any Tracer
    let span: any Span
    /// What the attempt's requests carry: this span as their parent.
    public let traceParent: TraceParent?
    /// How the attempt ended, as stored (`note`); the span is ended with it.
    private let outcome = Mutex<(state: CallState, reason: String?)?>(nil)

    public init(tracer: any Tracer, call: CallRecord, engine: String, at start: Date) {
        self.tracer = tracer
        span = tracer.startSpan("call", context: TraceParent.context(of: call.traceParent.flatMap(TraceParent.init), on: tracer),
                                ofKind: call.direction == .inbound ? .server : .client, at: DefaultTracerClock.Timestamp(start))
        span.attributes["voicebridge.call.id"] = call.outboundId
        span.attributes["voicebridge.call.direction"] = call.direction.rawValue
        span.attributes["voicebridge.call.attempt"] = call.attemptCount
        span.attributes["voicebridge.engine"] = engine
        traceParent = TraceParent.of(span.context, on: tracer)
    }

    /// The stored end of the attempt: its state, and the reason stored with it (nil: the agent ended the call).
    public func note(state: CallState, reason: String?) {
        outcome.withLock { $0 = (state, reason) }
    }

    /// The call's turns under this span, from the report stored when it ended.
    public func record(_ report: CallReport, answered: Date) {
        span.attributes["voicebridge.call.turns"] = report.turns.count
        span.attributes["voicebridge.call.barge_ins"] = report.bargeIns
        for cut in report.interruptions {
            var attributes: SpanAttributes = [:]
            attributes["voicebridge.barge_in.heard_ms"] = cut.heardMs
            attributes["voicebridge.barge_in.generated_ms"] = cut.generatedMs
            if let turn = cut.turn { attributes["voicebridge.turn.number"] = turn }
            span.addEvent(SpanEvent(name: "barge-in", at: DefaultTracerClock.Timestamp(answered.addingTimeInterval(cut.at)), attributes: attributes))
        }
        for turn in report.turns {
            let start = answered.addingTimeInterval(turn.speechEndedAt)
            let steps = Self.steps(of: turn)
            let turnSpan = tracer.startSpan("turn", context: span.context, ofKind: .internal, at: DefaultTracerClock.Timestamp(start))
            turnSpan.attributes["voicebridge.turn.number"] = turn.turn
            turnSpan.attributes["voicebridge.turn.interrupted"] = turn.interrupted
            if let heard = turn.heardMs { turnSpan.attributes["voicebridge.turn.heard_ms"] = heard }
            if let generated = turn.generatedMs { turnSpan.attributes["voicebridge.turn.generated_ms"] = generated }
            for (provider, milliseconds) in turn.firstByteMs { turnSpan.attributes["voicebridge.turn.first_byte_ms.\(provider)"] = milliseconds }
            for step in steps {
                let child = tracer.startSpan(step.name, context: turnSpan.context, ofKind: .internal, at: DefaultTracerClock.Timestamp(start, plusMilliseconds: step.from))
                child.end(at: DefaultTracerClock.Timestamp(start, plusMilliseconds: step.to))
            }
            turnSpan.end(at: DefaultTracerClock.Timestamp(start, plusMilliseconds: steps.last?.to ?? 0))
        }
    }

    /// Ends the span with the noted outcome; a failed attempt is an error span.
    public func end(at date: Date) {
        let (state, reason) = outcome.withLock { $0 } ?? (nil, nil)
        if let state {
            span.attributes["voicebridge.call.state"] = state.rawValue
            span.attributes["voicebridge.call.ending"] = reason ?? "agent_finished"
            if state == .failed { span.setStatus(SpanStatus(code: .error, message: reason)) }
        }
        span.end(at: DefaultTracerClock.Timestamp(date))
    }

    /// The steps of a turn, each from the one before it, in milliseconds after the speech end.
    static func steps(of turn: TurnTiming) -> [(name: String, from: Int, to: Int)] {
        let marks: [(String, Int?)] = [("end of turn", turn.turnEndedMs), ("transcription", turn.transcriptMs), ("reply", turn.replyStartedMs),
                                       ("synthesis", turn.firstAudioMs), ("playout", turn.firstFrameMs)]
        var steps: [(name: String, from: Int, to: Int)] = []
        var from = 0
        for (name, mark) in marks {
            guard let mark, mark >= from else { continue }
            steps.append((name, from, mark))
            from = mark
        }
        return steps
    }
}

extension CallSpan {
    /// The "call queued" span of a call being stored, under `received` (the request's own
    /// trace) if any: the call keeps `traceParent`, and `end` closes it once the call is stored
    /// (`callID`) or refused (nil).
    public struct Queued {
        let span: any Span
        public let traceParent: TraceParent?
        let at: DefaultTracerClock.Timestamp

        public init(on tracer: any Tracer, under received: TraceParent?, at date: Date) {
            at = DefaultTracerClock.Timestamp(date)
            span = tracer.startSpan("call queued", context: TraceParent.context(of: received, on: tracer), ofKind: .producer, at: at)
            traceParent = TraceParent.of(span.context, on: tracer)
        }

        public func end(callID: String?) {
            if let callID { span.attributes["voicebridge.call.id"] = callID } else { span.setStatus(SpanStatus(code: .error, message: "not queued")) }
            span.end(at: at)
        }
    }
}
