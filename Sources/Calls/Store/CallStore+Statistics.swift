import Analysis
import Foundation

/// Seed 000 §12 (통계 대시보드): what an operator reads off a day's or a campaign's calls. Every
/// figure carries what it counts, so "Completed 3" beside "Success rate 33.3 %" explains itself.
extension CallStore {
    public struct Statistics: Codable, Sendable, Equatable {
        public struct Figure: Codable, Sendable, Equatable {
            public var value: Double
            /// What the figure counts, in words.
            public var counts: String
            public var numerator: Int?
            public var denominator: Int?
        }

        public struct Question: Codable, Sendable, Equatable {
            public var question: String
            /// Calls that asked it or should have (statuses: answered, unclear, refused, pending, not_asked).
            public var statuses: [String: Int]
            /// Of the answered ones whose answer is yes or no.
            public var yes: Int
            public var no: Int
        }

        /// A flow field across a campaign's calls: how often it was answered, refused or left
        /// unclear, its answers counted (the 20 most frequent; `other` counts the rest), and the
        /// mean of a number field's answers.
        public struct Field: Codable, Sendable, Equatable {
            public var field: String
            public var kind: String
            public var statuses: [String: Int]
            public var values: [String: Int]
            public var other: Int
            public var mean: Double?
        }

        /// A campaign's post-call analyses: how many succeeded by the analysis, and the callees' sentiment.
        public struct Analyses: Codable, Sendable, Equatable {
            public var analysed: Int
            public var successRate: Figure
            public var sentiment: [String: Int]
            public var categories: [String: Int]

            enum CodingKeys: String, CodingKey {
                case analysed, sentiment, categories
                case successRate = "success_rate"
            }
        }

        public struct Hour: Codable, Sendable, Equatable {
            /// The hour's start, UTC.
            public var hour: Date
            public var calls: Int
        }

        public var scope: String
        public var calls: Figure
        public var successRate: Figure
        public var averageDurationSeconds: Figure
        /// Ended calls by final state.
        public var outcomes: [String: Int]
        public var outcomesCount: String
        public var questions: [Question]
        /// Flow calls by the outcome of the end step they reached.
        public var flowOutcomes: [String: Int]
        /// A campaign's flow fields (nil for the whole store: a field is a template's word).
        public var fields: [Field]?
        /// A campaign's post-call analyses (nil for the whole store).
        public var analyses: Analyses?
        /// Attempts started per hour (UTC).
        public var callsPerHour: [Hour]
        /// Questions callers asked that the knowledge base could not answer, still open (of all kept).
        public var openQuestions: Figure

        enum CodingKeys: String, CodingKey {
            case scope, calls, outcomes, questions, fields, analyses
            case flowOutcomes = "flow_outcomes"
            case successRate = "success_rate", averageDurationSeconds = "average_duration_seconds"
            case outcomesCount = "outcomes_count", callsPerHour = "calls_per_hour", openQuestions = "open_questions"
        }
    }

    static func fieldDistributions(_ results: [CallFlowResult]) -> [Statistics.Field] {
        var byName: [String: (kind: String, statuses: [String: Int], values: [String: Int], sum: Double, numbers: Int)] = [:]
        for result in results {
            for (name, value) in result.fields {
                var entry = byName[name] ?? (value.kind.rawValue, [:], [:], 0, 0)
                entry.statuses[value.status.rawValue, default: 0] += 1
                if let answer = value.answer {
                    entry.values[answer, default: 0] += 1
                    if value.kind == .number, let number = Double(answer) { entry.sum += number; entry.numbers += 1 }
                }
                byName[name] = entry
            }
        }
        return byName.sorted { $0.key < $1.key }.map { name, entry in
            let ranked = entry.values.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            return .init(field: name, kind: entry.kind, statuses: entry.statuses, values: Dictionary(uniqueKeysWithValues: ranked.prefix(20).map { ($0.key, $0.value) }),
                         other: ranked.dropFirst(20).reduce(0) { $0 + $1.value },
                         mean: entry.numbers == 0 ? nil : (entry.sum / Double(entry.numbers) * 100).rounded() / 100)
        }
    }

    static func analysisFigures(_ analyses: [CallAnalysis]) -> Statistics.Analyses {
        let succeeded = analyses.filter(\.success).count
        var sentiment: [String: Int] = [:], categories: [String: Int] = [:]
        for analysis in analyses {
            if let s = analysis.sentiment { sentiment[s.rawValue, default: 0] += 1 }
            categories[analysis.category, default: 0] += 1
        }
        return .init(analysed: analyses.count,
                     successRate: .init(value: analyses.isEmpty ? 0 : (Double(succeeded) * 1000 / Double(analyses.count)).rounded() / 10,
                                        counts: "analysed calls their analysis calls a success, as a percentage of analysed calls", numerator: succeeded, denominator: analyses.count),
                     sentiment: sentiment, categories: categories)
    }

    static let endedStates = CallState.allCases.filter(\.isTerminal).map(\.rawValue)

    /// Every call's figures, or one campaign's.
    public func statistics(campaignID: String? = nil) async throws -> Statistics {
        try await sqlRead { [self] sql in
            let filter = campaignID == nil ? "1 = 1" : "c.campaign_id = ?"   // every query names the calls table c
            let arguments: [SQLValue] = campaignID.map { [.text($0)] } ?? []
            let total = try sql.scalar(Int.self, "SELECT COUNT(*) FROM calls c WHERE \(filter)", arguments) ?? 0
            var outcomes: [String: Int] = Dictionary(uniqueKeysWithValues: Self.endedStates.map { ($0, 0) })
            for row in try sql.rows("SELECT state, COUNT(*) AS n FROM calls c WHERE \(filter) GROUP BY state", arguments) {
                let state = try row.get("state", as: String.self)
                if outcomes[state] != nil { outcomes[state] = try row.get("n", as: Int.self) }
            }
            let ended = outcomes.values.reduce(0, +)
            let succeeded = try sql.scalar(Int.self, "SELECT COUNT(*) FROM calls c WHERE \(filter) AND state = 'completed' AND task_completed = ?",
                                           arguments + [.bool(true)]) ?? 0
            let talk = try sql.rows("""
                SELECT COUNT(*) AS n, CAST(COALESCE(AVG(duration_seconds), 0) AS \(sql.dialect.realType)) AS mean
                FROM calls c WHERE \(filter) AND answered_at IS NOT NULL AND duration_seconds IS NOT NULL
                """, arguments).first
            // Grouped by the stored summary, opened here: sealed summaries differ even when their
            // text is the same, so they are counted together once opened.
            var questions: [String: (order: Int, statuses: [String: Int], yes: Int, no: Int)] = [:]
            for row in try sql.rows("""
                SELECT a.question_text AS q, MIN(a.question_id) AS qid, a.status AS status, a.answer_summary AS summary, COUNT(*) AS n
                FROM answers a JOIN calls c ON c.outbound_id = a.outbound_id WHERE \(filter)
                GROUP BY a.question_text, a.status, a.answer_summary
                """, arguments) {
                let text = try row.get("q", as: String.self), status = try row.get("status", as: String.self), n = try row.get("n", as: Int.self)
                let summary = try opened(try row.get("summary", as: String?.self))?.lowercased() ?? ""
                let order = Int(try row.get("qid", as: String.self).dropFirst()) ?? 0
                var entry = questions[text] ?? (order, [:], 0, 0)
                entry.order = min(entry.order, order)
                entry.statuses[status, default: 0] += n
                if status == "answered", summary == "yes" { entry.yes += n }
                if status == "answered", summary == "no" { entry.no += n }
                questions[text] = entry
            }
            var flowOutcomes: [String: Int] = [:]
            for row in try sql.rows("SELECT outcome, COUNT(*) AS n FROM calls c WHERE \(filter) AND outcome IS NOT NULL GROUP BY outcome", arguments) {
                flowOutcomes[try row.get("outcome", as: String.self)] = try row.get("n", as: Int.self)
            }
            // Fields are sealed with the rest of the flow result: opened and counted here, for one campaign.
            let fields = try campaignID.map { _ in
                Self.fieldDistributions(try sql.column(String.self, "SELECT flow_result FROM calls c WHERE \(filter) AND flow_result IS NOT NULL", arguments)
                    .compactMap { try CallFlowResult(stored: try opened($0)) })
            }
            let analyses = try campaignID.map { _ in
                Self.analysisFigures(try sql.column(String.self, "SELECT analysis FROM calls c WHERE \(filter) AND analysis IS NOT NULL", arguments)
                    .map { try JSONDecoder().decode(CallAnalysis.self, from: Data(try opened($0).utf8)) })
            }
            let hours = try sql.rows("""
                SELECT \(sql.dialect.hourUTC("a.started_at")) AS hour, COUNT(*) AS n FROM attempts a JOIN calls c ON c.outbound_id = a.outbound_id
                WHERE \(filter) GROUP BY hour ORDER BY hour DESC LIMIT 168
                """, arguments).compactMap { row -> Statistics.Hour? in
                guard let date = ISO8601DateFormatter().date(from: try row.get("hour", as: String.self)) else { return nil }
                return .init(hour: date, calls: try row.get("n"))
            }
            let asked = try sql.rows("""
                SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN q.resolved_at IS NULL THEN 1 ELSE 0 END), 0) AS open
                FROM knowledge_questions q JOIN calls c ON c.outbound_id = q.outbound_id WHERE \(filter)
                """, arguments).first
            let openQuestions = try asked?.get("open", as: Int.self) ?? 0
            return Statistics(
                scope: campaignID.map { "the calls of campaign \($0)" } ?? "every call stored, outbound and inbound",
                calls: .init(value: Double(total), counts: "calls stored in any state (a retried call counts once)"),
                successRate: .init(value: ended == 0 ? 0 : (Double(succeeded) * 1000 / Double(ended)).rounded() / 10,
                                   counts: "completed calls whose every question got an answer, as a percentage of ended calls (completed, no answer, busy, rejected, failed, cancelled)",
                                   numerator: succeeded, denominator: ended),
                averageDurationSeconds: .init(value: ((try talk?.get("mean", as: Double.self) ?? 0) * 10).rounded() / 10,
                                              counts: "mean talk time, answer to hang-up, of calls that were answered", numerator: nil,
                                              denominator: try talk?.get("n", as: Int.self)),
                outcomes: outcomes, outcomesCount: "ended calls by final state; a call waiting for its retry is not ended",
                questions: questions.sorted { ($0.value.order, $0.key) < ($1.value.order, $1.key) }
                    .map { .init(question: $0.key, statuses: $0.value.statuses, yes: $0.value.yes, no: $0.value.no) },
                flowOutcomes: flowOutcomes, fields: fields, analyses: analyses, callsPerHour: hours.reversed(),
                openQuestions: .init(value: Double(openQuestions),
                                     counts: "questions callers asked that the knowledge base could not answer, not yet answered or dismissed (of all such questions)",
                                     numerator: openQuestions, denominator: try asked?.get("n", as: Int.self) ?? 0))
        }
    }
}
