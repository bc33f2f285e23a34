import Foundation

/// When a campaign may dial (seed 004): days of the week and a time of day in a time zone, e.g.
/// `Asia/Seoul` Mon–Fri 09:00–18:00. Decided on the wall clock of that zone, so a server in UTC
/// calls Seoul at Seoul's office hours, summer time included where a zone has it.
public struct CallingWindow: Codable, Sendable, Equatable {
    /// IANA name (`Asia/Seoul`).
    public var timeZone: String
    /// ISO weekdays: 1 = Monday … 7 = Sunday.
    public var days: [Int]
    /// "HH:mm", inclusive.
    public var start: String
    /// "HH:mm", exclusive; earlier than `start` means the window runs past midnight.
    public var end: String

    enum CodingKeys: String, CodingKey {
        case days, start, end
        case timeZone = "time_zone"
    }

    public init(timeZone: String, days: [Int] = [1, 2, 3, 4, 5], start: String = "09:00", end: String = "18:00") {
        self.timeZone = timeZone
        self.days = days
        self.start = start
        self.end = end
    }

    /// Every problem, named by field under `prefix`.
    public func problems(prefix: String) -> [ValidationError.Field] {
        var problems: [ValidationError.Field] = []
        if TimeZone(identifier: timeZone) == nil { problems.append(.init(name: "\(prefix).time_zone", message: "'\(timeZone)' is not an IANA time zone (e.g. Asia/Seoul)")) }
        if days.isEmpty || days.contains(where: { !(1...7).contains($0) }) {
            problems.append(.init(name: "\(prefix).days", message: "must list ISO weekdays, 1 (Monday) to 7 (Sunday)"))
        }
        for (field, value) in [("start", start), ("end", end)] where Self.minutes(value) == nil {
            problems.append(.init(name: "\(prefix).\(field)", message: "must be HH:mm (24-hour)"))
        }
        if start == end { problems.append(.init(name: "\(prefix).end", message: "must differ from start")) }
        return problems
    }

    /// Whether `date` falls inside the window (false for an invalid window).
    public func contains(_ date: Date) -> Bool {
        guard let zone = TimeZone(identifier: timeZone), let from = Self.minutes(start), let to = Self.minutes(end) else { return false }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        guard let weekday = parts.weekday, let hour = parts.hour, let minute = parts.minute else { return false }
        let isoDay = (weekday + 5) % 7 + 1   // Calendar: 1 = Sunday
        let now = hour * 60 + minute
        if from < to { return days.contains(isoDay) && now >= from && now < to }
        // Past midnight: the part after midnight belongs to the day the window opened.
        if now >= from { return days.contains(isoDay) }
        return now < to && days.contains(isoDay == 1 ? 7 : isoDay - 1)
    }

    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]),
              (0...23).contains(h), (0...59).contains(m) else { return nil }
        return h * 60 + m
    }
}
