import Foundation
import Tracing

/// A connected call as OpenTelemetry spans, made from its report when it ends — the same turn
/// timeline the report, `/metrics` and the dashboard show, so the three never disagree, and no
/// span is made while audio flows. One trace a call:
///
/// ```
/// call (answered → ended)            voicebridge.call.id, .direction, .ending, .turns, .barge_ins; barge-in events
///   turn (speech end → first frame)  voicebridge.turn.number, .interrupted, .heard_ms, .generated_ms, .first_byte_ms.<provider>
///     transcription                  speech end → the caller's words as text
///     reply                          → the reply began (the model's first token, the scripted reply)
///     synthesis                      → its first audio
///     playout                        → its first frame to the leg
/// ```
///
/// Times are the call's clock's dates (virtual time in a test run is traced as it ran there).
/// Nothing a caller said and no number is an attribute: the call's id finds the rest.
struct CallTrace {
    var callID: String
    var direction: CallDirection
    var engine: String
    /// How the call ended, as stored (`remote_hangup`, `max_call_duration`, …); nil: the agent ended it.
    var ending: String?
    var answered: Date
    var ended: Date
    var report: CallReport

    /// The steps of a turn, each from the one before it, in milliseconds after the speech end.
    static func steps(of turn: TurnTiming) -> [(name: String, from: Int, to: Int)] {
        let marks: [(String, Int?)] = [("transcription", turn.transcriptMs), ("reply", turn.replyStartedMs),
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

    /// Makes the spans on `tracer`; they go out with its exporter's next batch.
    func record(on tracer: any Tracer) {
        let call = tracer.startSpan("call", context: .topLevel, ofKind: direction == .inbound ? .server : .client, at: Self.instant(answered))
        call.attributes["voicebridge.call.id"] = callID
        call.attributes["voicebridge.call.direction"] = direction.rawValue
        call.attributes["voicebridge.engine"] = engine
        call.attributes["voicebridge.call.ending"] = ending ?? "agent_finished"
        call.attributes["voicebridge.call.turns"] = report.turns.count
        call.attributes["voicebridge.call.barge_ins"] = report.bargeIns
        for cut in report.interruptions {
            var attributes: SpanAttributes = [:]
            attributes["voicebridge.barge_in.heard_ms"] = cut.heardMs
            attributes["voicebridge.barge_in.generated_ms"] = cut.generatedMs
            if let turn = cut.turn { attributes["voicebridge.turn.number"] = turn }
            call.addEvent(SpanEvent(name: "barge-in", at: Self.instant(answered.addingTimeInterval(cut.at)), attributes: attributes))
        }
        for turn in report.turns {
            let start = answered.addingTimeInterval(turn.speechEndedAt)
            let steps = Self.steps(of: turn)
            let span = tracer.startSpan("turn", context: call.context, ofKind: .internal, at: Self.instant(start))
            span.attributes["voicebridge.turn.number"] = turn.turn
            span.attributes["voicebridge.turn.interrupted"] = turn.interrupted
            if let heard = turn.heardMs { span.attributes["voicebridge.turn.heard_ms"] = heard }
            if let generated = turn.generatedMs { span.attributes["voicebridge.turn.generated_ms"] = generated }
            for (provider, milliseconds) in turn.firstByteMs { span.attributes["voicebridge.turn.first_byte_ms.\(provider)"] = milliseconds }
            for step in steps {
                let child = tracer.startSpan(step.name, context: span.context, ofKind: .internal, at: Self.instant(start, plus: step.from))
                child.end(at: Self.instant(start, plus: step.to))
            }
            span.end(at: Self.instant(start, plus: steps.last?.to ?? 0))
        }
        call.end(at: Self.instant(ended))
    }

    static func instant(_ date: Date, plus milliseconds: Int = 0) -> DefaultTracerClock.Timestamp {
        let seconds = date.timeIntervalSince1970 + Double(milliseconds) / 1000
        return DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: UInt64(max(0, seconds * 1_000_000_000).rounded()))
    }
}
