import Foundation
import GRDB

/// Reads behind the REST API's list, stats and detail views.
extension CallStore {
    public struct Page: Sendable {
        public var calls: [CallRecord]
        public var total: Int
    }

    /// Calls newest first, optionally only in `states` and matching `search` in either number
    /// (digits compared without separators) or the purpose.
    public func page(states: [CallState]? = nil, search: String? = nil, limit: Int = 50, offset: Int = 0) async throws -> Page {
        try await read { [self] db in
            var query = CallRecord.all()
            if let states { query = query.filter(states.map(\.rawValue).contains(Column("state"))) }
            if let search = search?.trimmingCharacters(in: .whitespaces), !search.isEmpty {
                let digits = search.filter { $0.isASCII && $0.isNumber }
                let text = "%" + search.replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
                var match = SQL("purpose LIKE \(text) ESCAPE '\\'")
                if !digits.isEmpty {
                    let number = "%\(digits)%"
                    match = SQL("(\(match) OR caller_number LIKE \(number) OR callee_number LIKE \(number))")
                }
                query = query.filter(match)
            }
            let total = try query.fetchCount(db)
            let calls = try query.order(Column("created_at").desc, Column("outbound_id")).limit(limit, offset: offset).fetchAll(db)
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
        try await read { db in
            var stats = Stats()
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM calls GROUP BY state") {
                if let state = CallState(rawValue: row["state"]) { stats.byState[state] = row["n"] }
            }
            stats.tasksCompleted = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM calls WHERE state = 'completed' AND task_completed = 1") ?? 0
            stats.averageDurationSeconds = try Double.fetchOne(db, sql: "SELECT AVG(duration_seconds) FROM calls WHERE duration_seconds IS NOT NULL") ?? 0
            if let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS calls, COALESCE(SUM(estimated_cost), 0) AS cost, COALESCE(SUM(turns), 0) AS turns,
                       COALESCE(SUM(barge_ins), 0) AS barge_ins, COALESCE(SUM(first_audio_ms_total), 0) AS first_audio, MAX(currency) AS currency
                FROM call_reports
                """) {
                stats.reports = .init(calls: row["calls"], estimatedCost: row["cost"], currency: row["currency"] ?? "USD", turns: row["turns"],
                                      bargeIns: row["barge_ins"], firstAudioMillisecondsTotal: row["first_audio"])
            }
            return stats
        }
    }

    /// Every event of one call, oldest first.
    public func events(callID: String) async throws -> [CallEvent] {
        try await read { db in
            try CallEvent.filter(Column("outbound_id") == callID).order(Column("id")).fetchAll(db)
        }.map(opened)
    }

    /// The id of the newest event (0 when there is none): where a fresh event stream starts.
    public func latestEventID() async throws -> Int64 {
        try await read { try Int64.fetchOne($0, sql: "SELECT MAX(id) FROM events") ?? 0 }
    }
}
