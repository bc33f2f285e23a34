import Dialogue
import Foundation
import Pipeline
import Realtime

extension CallStore {
    /// Writes one transcript line as it happens (and its event); returns the row id.
    @discardableResult
    public func appendTranscript(callID: String, seconds: Double, speaker: Speaker, text: String, now: Date = Date()) async throws -> Int64 {
        try await sqlWrite { [self] sql in
            let id = try sql.scalar(Int64.self, "INSERT INTO transcript_entries (outbound_id, seconds, speaker, text, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
                                    [.text(callID), .real(seconds), .text(speaker.rawValue), sealed(text).sqlValue, .date(now)]) ?? 0
            // The event carries the line too: sealed whole (the event readers open it).
            try Self.append(CallEvent(outboundId: callID, type: "transcript",
                                      payload: sealed(Self.json(["speaker": speaker.rawValue, "text": text, "timestamp": String(format: "%.2f", seconds)])), createdAt: now),
                            in: sql)
            return id
        }
    }

    /// Latency from the end of the caller's speech to the agent's first audio, on the agent line.
    public func setLatency(transcriptID: Int64, milliseconds: Int) async throws {
        try await sqlWrite { try $0.execute("UPDATE transcript_entries SET latency_ms = ? WHERE id = ?", milliseconds, transcriptID) }
    }

    /// When an agent line began to be heard (seconds since answer), known only once its first frame is sent.
    public func setHeardAt(transcriptID: Int64, seconds: Double) async throws {
        try await sqlWrite { try $0.execute("UPDATE transcript_entries SET seconds = ? WHERE id = ?", seconds, transcriptID) }
    }

    public func transcript(callID: String) async throws -> [(entry: TranscriptEntry, latencyMilliseconds: Int?)] {
        try await sqlRead { [self] sql in
            try sql.rows("SELECT seconds, speaker, text, latency_ms FROM transcript_entries WHERE outbound_id = ? ORDER BY id", callID).map {
                (TranscriptEntry(timestamp: try $0.get("seconds"), speaker: Speaker(rawValue: try $0.get("speaker")) ?? .ai, text: try opened(try $0.get("text", as: String.self))),
                 try $0.get("latency_ms", as: Int?.self))
            }
        }
    }

    /// Stores the current answers (and an `outbound_progress` event).
    public func saveAnswers(callID: String, answers: [TaskTracker.Answer], now: Date = Date()) async throws {
        try await sqlWrite { [self] in try saveAnswers(callID: callID, answers: answers, now: now, in: $0) }
    }

    /// `saveAnswers(callID:answers:now:)` inside a transaction the caller holds.
    private func saveAnswers(callID: String, answers: [TaskTracker.Answer], now: Date, in sql: any SQLConnection) throws {
        for a in answers {
            try sql.execute("""
                INSERT INTO answers (outbound_id, question_id, question_text, status, answer_text, answer_summary, confidence)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(outbound_id, question_id) DO UPDATE SET status = excluded.status, answer_text = excluded.answer_text,
                    answer_summary = excluded.answer_summary, confidence = excluded.confidence
                """, callID, a.questionID, a.question, a.status.rawValue, sealed(a.answerText), sealed(a.answerSummary), a.confidence)
        }
        let done = answers.filter { $0.status != .pending && $0.status != .notAsked }.count
        try Self.append(CallEvent(outboundId: callID, type: "outbound_progress",
                                  payload: Self.json(["answered": String(done), "total": String(answers.count)]), createdAt: now), in: sql)
    }

    public func answers(callID: String) async throws -> [TaskTracker.Answer] {
        try await sqlRead { [self] sql in
            try sql.rows("SELECT * FROM answers WHERE outbound_id = ? ORDER BY question_id", callID).map { try answer($0) }
        }
    }

    /// An `answers` row, opened.
    func answer(_ row: SQLRow) throws -> TaskTracker.Answer {
        TaskTracker.Answer(questionID: try row.get("question_id"), question: try row.get("question_text"),
                           status: TaskTracker.Status(rawValue: try row.get("status")) ?? .pending,
                           answerText: try opened(try row.get("answer_text", as: String?.self)), answerSummary: try opened(try row.get("answer_summary", as: String?.self)),
                           confidence: try row.get("confidence"), timesAsked: 0)
    }

    /// Stores the result columns of a finished conversation, its answers and the questions it
    /// passed on, in one transaction.
    public func saveResult(callID: String, result: ConversationResult, now: Date = Date()) async throws {
        try await sqlWrite { [self] sql in
            let flow = try CallFlowResult(result).map(Self.jsonText)
            let languages = try result.languagesSpoken.map(Self.jsonText)
            try sql.execute("""
                UPDATE calls SET summary = ?, task_completed = ?, duration_seconds = ?, ai_turns = ?, customer_turns = ?, outcome = ?, flow_result = ?,
                    languages_spoken = ?
                WHERE outbound_id = ?
                """, sealed(result.summary), result.taskCompleted, result.durationSeconds, result.aiTurns, result.customerTurns,
                            result.outcome, sealed(flow), languages, callID)
            try saveAnswers(callID: callID, answers: result.answers, now: now, in: sql)
            try KnowledgeQuestionStore.keep(result.openQuestions, callID: callID, now: now, sealedWith: cipher, in: sql)
        }
    }

    public func addRecording(callID: String, path: String, bytes: Int, durationSeconds: Double, now: Date = Date()) async throws {
        try await sqlWrite { sql in
            try sql.execute("INSERT INTO recordings (outbound_id, path, format, bytes, duration_seconds, created_at) VALUES (?, ?, 'wav', ?, ?, ?)",
                            callID, path, bytes, durationSeconds, now)
        }
    }

    public func recordingPath(callID: String) async throws -> String? {
        try await sqlRead { try $0.scalar(String.self, "SELECT path FROM recordings WHERE outbound_id = ? ORDER BY id DESC LIMIT 1", [.text(callID)]) }
    }

    /// Sets the SIP Call-ID of the current attempt.
    public func setSIPCallID(callID: String, sipCallID: String) async throws {
        try await sqlWrite { sql in
            try sql.execute("UPDATE calls SET call_id = ? WHERE outbound_id = ?", sipCallID, callID)
            try sql.execute("UPDATE attempts SET sip_call_id = ? WHERE outbound_id = ? AND ended_at IS NULL", sipCallID, callID)
        }
    }

    /// Who answered — human, machine or unknown — as our detector (with when, in ms after answer)
    /// or the carrier's says.
    public func setAnsweredBy(callID: String, _ answeredBy: String, afterMs: Int? = nil) async throws {
        try await sqlWrite { try $0.execute("UPDATE calls SET answered_by = ?, answered_by_ms = ? WHERE outbound_id = ?", answeredBy, afterMs, callID) }
    }
}

extension CallStore {
    /// Where the call was handed to a person, and how that went (answered, busy, no_answer, failed).
    public func setTransfer(callID: String, target: String, outcome: String) async throws {
        try await sqlWrite { try $0.execute("UPDATE calls SET transferred_to = ?, transfer_outcome = ? WHERE outbound_id = ?", target, outcome, callID) }
    }

    /// Appends an event to a call's history (a provider's status callback, for instance).
    public func appendEvent(callID: String, type: String, payload: [String: String], now: Date = Date()) async throws {
        try await sqlWrite { try Self.append(CallEvent(outboundId: callID, type: type, payload: Self.json(payload), createdAt: now), in: $0) }
    }

    public func saveReport(callID: String, report: CallReport, now: Date = Date()) async throws {
        let json = try Self.jsonText(report)
        try await sqlWrite { sql in
            try sql.execute("""
                INSERT INTO call_reports (outbound_id, report, estimated_cost, currency, turns, barge_ins, first_audio_ms_total, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (outbound_id) DO UPDATE SET report = excluded.report, estimated_cost = excluded.estimated_cost, currency = excluded.currency,
                    turns = excluded.turns, barge_ins = excluded.barge_ins, first_audio_ms_total = excluded.first_audio_ms_total, created_at = excluded.created_at
                """, callID, json, report.cost.total, report.cost.currency, report.turns.count, report.bargeIns,
                            report.turns.reduce(0) { $0 + ($1.firstAudioMs ?? 0) }, now)
        }
    }

    public func report(callID: String) async throws -> CallReport? {
        let json = try await sqlRead { try $0.scalar(String.self, "SELECT report FROM call_reports WHERE outbound_id = ?", [.text(callID)]) }
        return try json.map { try JSONDecoder().decode(CallReport.self, from: Data($0.utf8)) }
    }
}

extension CallStore {
    /// Appends `event` to the event log; returns it with the id the database gave it (the order
    /// every reader of `/api/events` follows).
    @discardableResult
    static func append(_ event: CallEvent, in sql: any SQLConnection) throws -> CallEvent {
        var stored = event
        stored.id = try sql.insert(event, into: "events", returning: "id").flatMap(Int64.init(sqlValue:))
        // Every node's event readers are woken when this commits (several in one transaction: one
        // notification); this node's by `sqlWrite`, on either database.
        if sql.dialect == .postgres { try sql.execute("NOTIFY \(Self.eventsChannel)") }
        sql.notes.appendedEvents = true
        return stored
    }
}
