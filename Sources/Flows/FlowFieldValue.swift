import Foundation

/// A field's state on a call: answered (with the normalised answer: `yes`, `3`, `50 USD`,
/// `2026-11-27T14:00`, a name, a choice, the words), refused, or asked without a usable answer.
public struct FlowFieldValue: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        case answered, refused, unclear
    }

    public var kind: FlowFieldKind
    public var status: Status
    /// The normalised answer when `answered`.
    public var answer: String?

    public init(kind: FlowFieldKind, status: Status, answer: String? = nil) {
        self.kind = kind
        self.status = status
        self.answer = status == .answered ? answer : nil
    }

    /// The answer as its type says: `true`/`false` for yes/no, a number for numbers (an amount
    /// keeps its currency as text), a string otherwise; nil when not answered.
    public var typedValue: Any? {
        guard let answer else { return nil }
        switch kind {
        case .yesNo: return answer == "yes"
        case .number:
            guard let number = Double(answer) else { return answer }
            return number == number.rounded() && abs(number) < 1e15 ? Int(number) as Any : number
        default: return answer
        }
    }

    /// The number an answer begins with ("50 USD" → 50).
    public static func leadingNumber(_ text: String) -> Double? {
        Double(text.prefix { $0.isNumber || $0 == "." || $0 == "-" })
    }

    static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}
