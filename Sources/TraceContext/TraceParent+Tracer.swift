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
