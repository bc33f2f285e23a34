import Foundation

/// One case of a `branch` step: a test on a field and the step it leads to. Exactly one test:
/// `equals` a value, `one_of` several, `is` a state (`yes`, `no`, `answered`, `empty`,
/// `refused`), or a numeric range (`min` and/or `max`, inclusive).
public struct FlowCondition: Codable, Sendable, Equatable {
    public var field: String
    public var equals: String?
    public var oneOf: [String]?
    public var `is`: State?
    public var min: Double?
    public var max: Double?
    public var next: String

    public enum State: String, Codable, Sendable {
        case yes, no, answered, empty, refused
    }

    enum CodingKeys: String, CodingKey {
        case field, equals, oneOf = "one_of", `is`, min, max, next
    }

    public init(field: String, equals: String? = nil, oneOf: [String]? = nil, is state: State? = nil, min: Double? = nil, max: Double? = nil, next: String) {
        self.field = field
        self.equals = equals
        self.oneOf = oneOf
        self.is = state
        self.min = min
        self.max = max
        self.next = next
    }

    /// `equals` may be written as a string, a number or a boolean (`true` is `yes`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        field = try c.decode(String.self, forKey: .field)
        next = try c.decode(String.self, forKey: .next)
        oneOf = try c.decodeIfPresent([String].self, forKey: .oneOf)
        self.is = try c.decodeIfPresent(State.self, forKey: .is)
        min = try c.decodeIfPresent(Double.self, forKey: .min)
        max = try c.decodeIfPresent(Double.self, forKey: .max)
        if let flag = try? c.decodeIfPresent(Bool.self, forKey: .equals) {
            equals = flag ? "yes" : "no"
        } else if let number = try? c.decodeIfPresent(Double.self, forKey: .equals) {
            equals = FlowFieldValue.format(number)
        } else {
            equals = try c.decodeIfPresent(String.self, forKey: .equals)
        }
    }

    /// How many tests the case states (a valid one states exactly one; a range counts once).
    var testCount: Int {
        [equals != nil, oneOf != nil, self.is != nil, min != nil || max != nil].filter { $0 }.count
    }

    /// Whether the case holds for the fields gathered so far.
    public func holds(in fields: [String: FlowFieldValue]) -> Bool {
        let value = fields[field]
        if let state = self.is {
            switch state {
            case .yes: return value?.answer == "yes"
            case .no: return value?.answer == "no"
            case .answered: return value?.answer != nil
            case .refused: return value?.status == .refused
            case .empty: return value?.answer == nil
            }
        }
        guard let answer = value?.answer else { return false }
        if let equals { return Self.same(answer, equals) }
        if let oneOf { return oneOf.contains { Self.same(answer, $0) } }
        guard let number = FlowFieldValue.leadingNumber(answer) else { return false }
        return number >= (min ?? -.infinity) && number <= (max ?? .infinity)
    }

    /// Values compare as numbers when both are numbers, else as words, ignoring case.
    static func same(_ a: String, _ b: String) -> Bool {
        if let x = FlowFieldValue.leadingNumber(a), let y = Double(b) { return x == y }
        return a.trimmingCharacters(in: .whitespaces).caseInsensitiveCompare(b.trimmingCharacters(in: .whitespaces)) == .orderedSame
    }
}
