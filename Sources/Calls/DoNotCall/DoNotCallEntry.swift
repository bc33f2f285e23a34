import Foundation

/// One number on the do-not-call list (`DoNotCallList`).
public struct DoNotCallEntry: Codable, Sendable, Equatable {
    public var number: String
    public var reason: String
    public var addedBy: String
    public var addedAt: Date
    /// `number` in E.164 (schema v16); set by the store.
    public var canonical: String?

    public init(number: String, reason: String = "", addedBy: String = "operator", addedAt: Date = Date()) {
        self.number = number
        self.reason = reason
        self.addedBy = addedBy
        self.addedAt = addedAt
    }

    enum CodingKeys: String, CodingKey {
        case number, reason, canonical
        case addedBy = "added_by", addedAt = "added_at"
    }
}
