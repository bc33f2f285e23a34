import Foundation

/// A JSON document as a value: a model's tool arguments, a tool's answer, a schema. Integers stay
/// integers (a schema's `integer` and an id of 2^53 both need that), booleans stay booleans.
public enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public struct ParseFailure: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// `text` parsed; a clear error when it is not one JSON value.
    public static func parse(_ text: String) throws(ParseFailure) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        } catch {
            throw ParseFailure(description: "not valid JSON" + (Self.position(of: error).map { " (\($0))" } ?? ""))
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .integer(i) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .integer(let i): try c.encode(i)
        case .number(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// Compact JSON with sorted keys.
    public var serialized: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { o[key] } else { nil }
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }

    /// The JSON type name, as a schema's `type` spells it.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    private static func position(of error: any Error) -> String? {
        guard case DecodingError.dataCorrupted(let context) = error else { return nil }
        return (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
    }
}
