import Logging

/// The log's encoder: every message and metadata value reaches the wrapped handler with its control
/// characters written as escapes (`\n`, `\r`, `\t`, `\u{1B}`), so a value that came from outside —
/// a stream id, a SIP header, a caller's name — cannot start a forged line or move a terminal's
/// cursor. The server's handler is this around swift-log's `StreamLogHandler`.
public struct EscapingLogHandler<Wrapped: LogHandler>: LogHandler {
    public var wrapped: Wrapped

    public init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    public func log(event: LogEvent) {
        var event = event
        let message = event.message.description
        if Self.needsEscaping(message) { event.message = "\(Self.escaped(message))" }
        event.metadata = event.metadata.map(Self.escaped)
        wrapped.log(event: event)
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue.map(Self.escaped) }
    }

    public var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = Self.escaped(newValue) }
    }

    public var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    static func escaped(_ metadata: Logger.Metadata) -> Logger.Metadata {
        var out: Logger.Metadata = [:]
        for (key, value) in metadata { out[escaped(key)] = escaped(value) }
        return out
    }

    static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): needsEscaping(text) ? .string(escaped(text)) : value
        case .stringConvertible(let thing):
            needsEscaping(thing.description) ? .string(escaped(thing.description)) : value
        case .array(let items): .array(items.map(escaped))
        case .dictionary(let entries): .dictionary(escaped(entries))
        }
    }

    static func needsEscaping(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" }
    }

    static func escaped(_ text: String) -> String {
        guard needsEscaping(text) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}":
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
