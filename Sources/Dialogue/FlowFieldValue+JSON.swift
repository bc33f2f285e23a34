import Flows
import Tools

extension FlowFieldValue {
    /// The answer as JSON, typed as `typedValue` says (`true`, `3`, `"fish"`); null when not answered.
    public var json: JSONValue {
        switch typedValue {
        case let flag as Bool: .bool(flag)
        case let count as Int: .integer(Int64(count))
        case let number as Double: .number(number)
        case let text as String: .string(text)
        default: .null
        }
    }
}
