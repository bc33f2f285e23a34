import Foundation
import Tracing

extension TraceParent {
    /// Where the spans of the work running in this task go, when this node traces its calls: a
    /// request made inside is then a client span of its own (`RequestSpan`), under `current`.
    @TaskLocal public static var recorder: Recorder?

    /// A tracer, and the clock its spans are stamped by: the call's (virtual time in a test run).
    public struct Recorder: Sendable {
        public let tracer: any Tracer
        public let now: @Sendable () -> Date

        public init(tracer: any Tracer, now: @escaping @Sendable () -> Date) {
            self.tracer = tracer
            self.now = now
        }

        /// Now, by the work's clock, as a span's time.
        public func timestamp() -> DefaultTracerClock.Timestamp { DefaultTracerClock.Timestamp(now()) }
    }

    /// The context this `traceparent` names, as `tracer`'s propagator reads it; top level when
    /// there is none or the tracer cannot read it.
    public static func context(of traceParent: TraceParent?, on tracer: any Tracer) -> ServiceContext {
        var context = ServiceContext.topLevel
        if let traceParent { tracer.extract([field: traceParent.value], into: &context, using: HeaderFields()) }
        return context
    }

    /// `context`'s span as a `traceparent`, written by `tracer`'s propagator.
    public static func of(_ context: ServiceContext, on tracer: any Tracer) -> TraceParent? {
        var fields: [String: String] = [:]
        tracer.inject(context, into: &fields, using: HeaderFields())
        return fields[field].flatMap(TraceParent.init)
    }

    /// Header fields as a dictionary, for a tracer's propagator to read and write.
    struct HeaderFields: Injector, Extractor {
        func inject(_ value: String, forKey key: String, into fields: inout [String: String]) { fields[key] = value }
        func extract(key: String, from fields: [String: String]) -> String? { fields[key] }
    }
}

/// One HTTP request the server makes inside traced work, as an OpenTelemetry client span
/// (semantic conventions: its name the method; `http.request.method`, `server.address`,
/// `server.port`, `http.response.status_code`; an error span when no answer came). Its
/// `traceParent` is what the request sends. No path and no query: a tool's URL may carry what
/// the caller said.
public struct RequestSpan: Sendable {
    let span: any Span
    let recorder: TraceParent.Recorder
    public let traceParent: TraceParent?

    /// A span under the current work's, if this node traces it (`TraceParent.recorder`); nil otherwise.
    public static func start(method: String, host: String, port: Int) -> RequestSpan? {
        guard let recorder = TraceParent.recorder, let parent = TraceParent.current else { return nil }
        let tracer = recorder.tracer
        let span = tracer.startSpan(method, context: TraceParent.context(of: parent, on: tracer), ofKind: .client, at: recorder.timestamp())
        span.attributes["http.request.method"] = method
        span.attributes["server.address"] = host
        span.attributes["server.port"] = port
        return RequestSpan(span: span, recorder: recorder, traceParent: TraceParent.of(span.context, on: tracer))
    }

    /// Ends the span with the answer's status (an error span from 500 on), or as failed (`status` nil).
    public func end(status: Int?) {
        if let status {
            span.attributes["http.response.status_code"] = status
            if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
        } else {
            span.setStatus(SpanStatus(code: .error, message: "no answer"))
        }
        span.end(at: recorder.timestamp())
    }
}

extension DefaultTracerClock.Timestamp {
    /// `date`, `milliseconds` later, as a span's time.
    public init(_ date: Date, plusMilliseconds milliseconds: Int = 0) {
        let seconds = date.timeIntervalSince1970 + Double(milliseconds) / 1000
        self.init(nanosecondsSinceEpoch: UInt64(max(0, seconds * 1_000_000_000).rounded()))
    }
}

extension TraceParent {
    /// Runs `body` as a span of its own (`name`, `kind`) under the current work's, when this node
    /// traces it; with that span current, so the requests `body` makes are its children. `ending`
    /// adds what the result says before the span ends. Untraced: `body` alone.
    public static func withSpan<T>(_ name: String, kind: SpanKind = .internal, attributes: SpanAttributes = [:],
                                   _ body: () async -> T, ending: (T, any Span) -> Void = { _, _ in }) async -> T {
        guard let recorder, let parent = current else { return await body() }
        let tracer = recorder.tracer
        let span = tracer.startSpan(name, context: context(of: parent, on: tracer), ofKind: kind, at: recorder.timestamp())
        span.attributes = attributes
        let result = await $current.withValue(of(span.context, on: tracer) ?? parent) { await body() }
        ending(result, span)
        span.end(at: recorder.timestamp())
        return result
    }
}
