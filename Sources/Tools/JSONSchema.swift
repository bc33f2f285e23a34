import Foundation

/// The JSON Schema a tool's `parameters` may use, and the check of a model's arguments against it.
///
/// Function-calling models are given the schema and usually keep to it, but not always: arguments
/// are checked before any request is made, and the model is told what was wrong so it can try again.
/// The keywords are those such schemas use — `type` (one or a list), `properties`, `required`,
/// `additionalProperties` (true or false), `items`, `enum`, `const`, `minimum`/`maximum`,
/// `minLength`/`maxLength`, `minItems`/`maxItems`, `pattern` — and annotations (`description`,
/// `title`, `default`, `examples`, `format`) that are not checked. Anything else (`$ref`, `oneOf`,
/// …) is refused when the tool is declared, rather than silently not checked.
public struct JSONSchema: Sendable, Equatable {
    public let document: JSONValue

    static let checked: Set<String> = ["type", "properties", "required", "additionalProperties", "items", "enum", "const",
                                       "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "pattern"]
    static let annotations: Set<String> = ["description", "title", "default", "examples", "format", "$schema"]
    static let types: Set<String> = ["null", "boolean", "integer", "number", "string", "array", "object"]

    /// A tool's parameters: an object schema using only the keywords above.
    public init(parameters: JSONValue) throws(ToolDefinition.Problem) {
        guard case .object = parameters, parameters["type"]?.stringValue == "object" else {
            throw .init(field: "parameters", message: "must be a JSON Schema object with \"type\": \"object\"")
        }
        if let problem = Self.problem(in: parameters, at: "parameters") { throw problem }
        document = parameters
    }

    /// The first unusable part of `schema`, with where it is.
    static func problem(in schema: JSONValue, at path: String) -> ToolDefinition.Problem? {
        guard case .object(let keywords) = schema else { return .init(field: path, message: "must be a schema object") }
        for (keyword, value) in keywords.sorted(by: { $0.key < $1.key }) {
            if annotations.contains(keyword) { continue }
            guard checked.contains(keyword) else {
                return .init(field: "\(path).\(keyword)", message: "is not supported (supported: \(checked.sorted().joined(separator: ", ")))")
            }
            switch (keyword, value) {
            case ("type", .string(let t)) where types.contains(t): continue
            case ("type", .array(let ts)) where !ts.isEmpty && ts.allSatisfy({ $0.stringValue.map(types.contains) ?? false }): continue
            case ("type", _): return .init(field: "\(path).type", message: "must be one of \(types.sorted().joined(separator: ", ")), or a list of them")
            case ("properties", .object(let properties)):
                for (name, sub) in properties.sorted(by: { $0.key < $1.key }) {
                    if let problem = problem(in: sub, at: "\(path).properties.\(name)") { return problem }
                }
            case ("items", let sub):
                if let problem = problem(in: sub, at: "\(path).items") { return problem }
            case ("required", .array(let names)) where names.allSatisfy({ $0.stringValue != nil }): continue
            case ("additionalProperties", .bool): continue
            case ("enum", .array(let values)) where !values.isEmpty: continue
            case ("const", _): continue
            case ("minimum", .integer), ("minimum", .number), ("maximum", .integer), ("maximum", .number): continue
            case ("minLength", .integer(let n)) where n >= 0, ("maxLength", .integer(let n)) where n >= 0,
                 ("minItems", .integer(let n)) where n >= 0, ("maxItems", .integer(let n)) where n >= 0: continue
            case ("pattern", .string(let p)):
                if (try? Regex(p)) == nil { return .init(field: "\(path).pattern", message: "is not a regular expression") }
            default:
                return .init(field: "\(path).\(keyword)", message: "has a value of the wrong kind")
            }
        }
        return nil
    }

    /// Every way `value` breaks the schema, each with its path (`date: must be a string`); empty
    /// when it conforms.
    public func violations(of value: JSONValue) -> [String] {
        var found: [String] = []
        Self.check(value, against: document, at: "", into: &found)
        return found
    }

    static func check(_ value: JSONValue, against schema: JSONValue, at path: String, into found: inout [String]) {
        let here = path.isEmpty ? "arguments" : path
        func fail(_ message: String) { found.append("\(here): \(message)") }
        if let type = schema["type"] {
            let allowed = type.stringValue.map { [$0] } ?? (type.arrayValue ?? []).compactMap(\.stringValue)
            guard allowed.contains(where: { Self.value(value, is: $0) }) else {
                return fail("must be \(allowed.joined(separator: " or ")), not \(value.typeName)")
            }
        }
        if let choices = schema["enum"]?.arrayValue, !choices.contains(where: { Self.same($0, value) }) {
            fail("must be one of \(choices.map(\.serialized).joined(separator: ", "))")
        }
        if let constant = schema["const"], !Self.same(constant, value) { fail("must be \(constant.serialized)") }
        switch value {
        case .integer, .number:
            let n = value.doubleValue ?? 0
            if let min = schema["minimum"]?.doubleValue, n < min { fail("must be at least \(schema["minimum"]!.serialized)") }
            if let max = schema["maximum"]?.doubleValue, n > max { fail("must be at most \(schema["maximum"]!.serialized)") }
        case .string(let s):
            if case .integer(let min) = schema["minLength"], s.count < min { fail("must be at least \(min) characters") }
            if case .integer(let max) = schema["maxLength"], s.count > max { fail("must be at most \(max) characters") }
            if let pattern = schema["pattern"]?.stringValue, let regex = try? Regex(pattern), (try? regex.firstMatch(in: s)) == nil {
                fail("must match \(pattern)")
            }
        case .array(let items):
            if case .integer(let min) = schema["minItems"], items.count < min { fail("must hold at least \(min) items") }
            if case .integer(let max) = schema["maxItems"], items.count > max { fail("must hold at most \(max) items") }
            if let itemSchema = schema["items"] {
                for (i, item) in items.enumerated() { check(item, against: itemSchema, at: "\(here)[\(i)]", into: &found) }
            }
        case .object(let members):
            let properties = schema["properties"]?.objectValue ?? [:]
            for name in (schema["required"]?.arrayValue ?? []).compactMap(\.stringValue) where members[name] == nil {
                found.append("\(path.isEmpty ? name : "\(path).\(name)"): is required")
            }
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                let memberPath = path.isEmpty ? name : "\(path).\(name)"
                if let sub = properties[name] {
                    check(member, against: sub, at: memberPath, into: &found)
                } else if case .bool(false) = schema["additionalProperties"] {
                    found.append("\(memberPath): is not a parameter of this tool")
                }
            }
        case .null, .bool:
            break
        }
    }

    static func value(_ value: JSONValue, is type: String) -> Bool {
        switch (type, value) {
        case ("integer", .integer), ("number", .integer), ("number", .number), ("string", .string), ("boolean", .bool),
             ("array", .array), ("object", .object), ("null", .null): true
        case ("integer", .number(let d)): d.rounded() == d
        default: false
        }
    }

    /// JSON equality, where 1 and 1.0 are the same number.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = a.doubleValue, let y = b.doubleValue { return x == y }
        return a == b
    }
}

extension JSONValue {
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .number(let d): d
        default: nil
        }
    }
}
