import Foundation

/// Reads behind the REST API's list, stats and detail views.
extension CallStore {
    public struct Page: Sendable {
        public var calls: [CallRecord]
        public var total: Int
    }

    /// Calls newest first, optionally only in `states` and matching `search` in either number
    /// (digits compared without separators) or the purpose.
    public func page(states: [CallState]? = nil, search: String? = nil, limit: Int = 50, offset: Int = 0) async throws -> Page {
        try await sqlRead { [self] sql in
            var conditions: [String] = []
            var arguments: [SQLValue] = []
            if let states {
                conditions.append("state IN (\(sql.placeholders(states.count)))")
                arguments += states.map { .text($0.rawValue) }
            }
            if let search = search?.trimmingCharacters(in: .whitespaces), !search.isEmpty {
                let digits = search.filter { $0.isASCII && $0.isNumber }
                let text = "%" + search.replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
                if digits.isEmpty {
                    conditions.append("purpose \(sql.dialect.caseInsensitiveLike) ? ESCAPE '\\'")
                    arguments.append(.text(text))
                } else {
                    conditions.append("(purpose \(sql.dialect.caseInsensitiveLike) ? ESCAPE '\\' OR caller_number LIKE ? OR callee_number LIKE ?)")
                    arguments += [.text(text), .text("%\(digits)%"), .text("%\(digits)%")]
                }
            }
            let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let total = try sql.scalar(Int.self, "SELECT COUNT(*) FROM calls\(filter)", arguments) ?? 0
            let calls = try sql.fetchAll(CallRecord.self, "SELECT * FROM calls\(filter) ORDER BY created_at DESC, outbound_id LIMIT ? OFFSET ?",
                                         arguments + [.integer(Int64(limit)), .integer(Int64(offset))])
            return Page(calls: try calls.map(opened), total: total)
        }
    }

    public struct Stats: Sendable, Equatable {
        public var byState: [CallState: Int] = [:]
        /// Completed calls with every question answered.
        public var tasksCompleted = 0
        public var averageDurationSeconds = 0.0
        /// Summed over every call report (calls that connected).
        public var reports = ReportTotals()

        public struct ReportTotals: Sendable, Equatable {
            public var calls = 0
            public var estimatedCost = 0.0
            public var currency = "USD"
            public var turns = 0
            public var bargeIns = 0
            public var firstAudioMillisecondsTotal = 0

            /// Mean time from the caller's speech end to the agent's first audio, over every turn.
            public var meanFirstAudioMilliseconds: Double { turns == 0 ? 0 : Double(firstAudioMillisecondsTotal) / Double(turns) }
        }
    }

    public func stats() async throws -> Stats {
        try await sqlRead { sql in
            var stats = Stats()
            for row in try sql.rows("SELECT state, COUNT(*) AS n FROM calls GROUP BY state", []) {
                if let state = CallState(rawValue: try row.get("state")) { stats.byState[state] = try row.get("n") }
            }
            stats.tasksCompleted = try sql.scalar(Int.self, "SELECT COUNT(*) FROM calls WHERE state = 'completed' AND task_completed = ?", [.bool(true)]) ?? 0
            stats.averageDurationSeconds = try sql.scalar(Double.self, "SELECT CAST(AVG(duration_seconds) AS \(sql.dialect.realType)) FROM calls WHERE duration_seconds IS NOT NULL", []) ?? 0
            let integer = sql.dialect.integerType   // PostgreSQL sums a BIGINT column as numeric
            if let row = try sql.rows("""
                SELECT COUNT(*) AS calls, COALESCE(SUM(estimated_cost), 0) AS cost, CAST(COALESCE(SUM(turns), 0) AS \(integer)) AS turns,
                       CAST(COALESCE(SUM(barge_ins), 0) AS \(integer)) AS barge_ins, CAST(COALESCE(SUM(first_audio_ms_total), 0) AS \(integer)) AS first_audio,
                       MAX(currency) AS currency
                FROM call_reports
                """, []).first {
                stats.reports = .init(calls: try row.get("calls"), estimatedCost: try row.get("cost"), currency: try row.get("currency", as: String?.self) ?? "USD",
                                      turns: try row.get("turns"), bargeIns: try row.get("barge_ins"), firstAudioMillisecondsTotal: try row.get("first_audio"))
            }
            return stats
        }
    }

    /// Every event of one call, oldest first.
    public func events(callID: String) async throws -> [CallEvent] {
        try await sqlRead { try $0.fetchAll(CallEvent.self, "SELECT * FROM events WHERE outbound_id = ? ORDER BY id", [.text(callID)]) }.map(opened)
    }

    /// The id of the newest event (0 when there is none): where a fresh event stream starts.
    public func latestEventID() async throws -> Int64 {
        try await sqlRead { try $0.scalar(Int64.self, "SELECT MAX(id) FROM events", []) ?? 0 }
    }
}
