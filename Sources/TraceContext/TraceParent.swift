/// The trace a piece of work belongs to, as W3C Trace Context's `traceparent` header carries it
/// (`00-<trace id>-<parent span id>-<flags>`): every request the work makes — a tool, an MCP
/// server, a webhook, an engine, Twilio, a bot — sends it, so the service it reaches can join
/// the call's trace.
///
/// The value is written by the tracer's own propagator (swift-otel's W3C one) when the call's
/// span starts, or read back from the store where it was kept; this type only carries it. It is
/// set for the work's task tree (`TraceParent.$current.withValue`), so a request made anywhere
/// inside — a child task, an engine's connection — finds it without being handed it. Nil (no
/// tracing, or work outside a call): nothing is sent.
public struct TraceParent: Sendable, Hashable, CustomStringConvertible {
    /// The header's name, lower case as the specification writes it.
    public static let field = "traceparent"

    /// The trace of the work running in this task, if it is traced.
    @TaskLocal public static var current: TraceParent?

    public let value: String

    /// `value` if it has the header's shape (version 00: 55 characters, lower-case hex and three
    /// dashes where the specification puts them); nil otherwise. Only the shape is checked here —
    /// what the ids mean is the tracer's to read.
    public init?(_ value: some StringProtocol) {
        let utf8 = Array(value.utf8)
        guard utf8.count == 55 else { return nil }
        for (i, byte) in utf8.enumerated() {
            let isDash = i == 2 || i == 35 || i == 52
            guard isDash ? byte == UInt8(ascii: "-") : Self.isLowerHex(byte) else { return nil }
        }
        self.value = String(value)
    }

    /// The trace's id (32 hex digits).
    public var traceID: Substring { value.dropFirst(3).prefix(32) }

    /// The span the work's requests are children of (16 hex digits).
    public var parentSpanID: Substring { value.dropFirst(36).prefix(16) }

    public var description: String { value }

    /// The header to add to a request made now: the current trace's, if any.
    public static var headerForCurrent: (name: String, value: String)? {
        current.map { (field, $0.value) }
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
