import Foundation
import GRDB
import Pipeline
import Realtime

extension CallStore {
    /// Writes one transcript line as it happens (and its event); returns the row id.
    @discardableResult
    public func appendTranscript(callID: String, seconds: Double, speaker: Speaker, text: String, now: Date = Date()) async throws -> Int64 {
        try await write { [self] db in
            try db.execute(sql: "INSERT INTO transcript_entries (outbound_id, seconds, speaker, text, created_at) VALUES (?, ?, ?, ?, ?)",
                           arguments: [callID, seconds, speaker.rawValue, sealed(text), now])
            let id = db.lastInsertedRowID
            // The event carries the line too: sealed whole (the event readers open it).
            var event = CallEvent(outboundId: callID, type: "transcript",
                                  payload: sealed(Self.json(["speaker": speaker.rawValue, "text": text, "timestamp": String(format: "%.2f", seconds)])), createdAt: now)
            try event.insert(db)
            return id
        }
    }

    /// Latency from the end of the caller's speech to the agent's first audio, on the agent line.
    public func setLatency(transcriptID: Int64, milliseconds: Int) async throws {
        try await write { try $0.execute(sql: "UPDATE transcript_entries SET latency_ms = ? WHERE id = ?", arguments: [milliseconds, transcriptID]) }
    }

    /// When an agent line began to be heard (seconds since answer), known only once its first frame is sent.
    public func setHeardAt(transcriptID: Int64, seconds: Double) async throws {
        try await write { try $0.execute(sql: "UPDATE transcript_entries SET seconds = ? WHERE id = ?", arguments: [seconds, transcriptID]) }
    }

    public func transcript(callID: String) async throws -> [(entry: TranscriptEntry, latencyMilliseconds: Int?)] {
        try await read { [self] db in
            try Row.fetchAll(db, sql: "SELECT seconds, speaker, text, latency_ms FROM transcript_entries WHERE outbound_id = ? ORDER BY id", arguments: [callID]).map {
                (TranscriptEntry(timestamp: $0["seconds"], speaker: Speaker(rawValue: $0["speaker"]) ?? .ai, text: try opened($0["text"] as String)), $0["latency_ms"])
            }
        }
    }

    /// Stores the current answers (and an `outbound_progress` event).
    public func saveAnswers(callID: String, answers: [TaskTracker.Answer], now: Date = Date()) async throws {
        try await write { [self] db in try saveAnswers(callID: callID, answers: answers, now: now, in: db) }
    }

    /// `saveAnswers(callID:answers:now:)` inside a transaction the caller holds.
    private func saveAnswers(callID: String, answers: [TaskTracker.Answer], now: Date, in db: Database) throws {
        for a in answers {
            try db.execute(sql: """
                INSERT INTO answers (outbound_id, question_id, question_text, status, answer_text, answer_summary, confidence)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(outbound_id, question_id) DO UPDATE SET status = excluded.status, answer_text = excluded.answer_text,
                    answer_summary = excluded.answer_summary, confidence = excluded.confidence
                """, arguments: [callID, a.questionID, a.question, a.status.rawValue, sealed(a.answerText), sealed(a.answerSummary), a.confidence])
        }
        let done = answers.filter { $0.status != .pending && $0.status != .notAsked }.count
        var event = CallEvent(outboundId: callID, type: "outbound_progress",
                              payload: Self.json(["answered": String(done), "total": String(answers.count)]), createdAt: now)
        try event.insert(db)
    }

    public func answers(callID: String) async throws -> [TaskTracker.Answer] {
        try await read { [self] db in
            try Row.fetchAll(db, sql: "SELECT * FROM answers WHERE outbound_id = ? ORDER BY question_id", arguments: [callID]).map { try answer($0) }
        }
    }

    /// An `answers` row, opened.
    func answer(_ row: Row) throws -> TaskTracker.Answer {
        TaskTracker.Answer(questionID: row["question_id"], question: row["question_text"], status: TaskTracker.Status(rawValue: row["status"]) ?? .pending,
                           answerText: try opened(row["answer_text"] as String?), answerSummary: try opened(row["answer_summary"] as String?),
                           confidence: row["confidence"], timesAsked: 0)
    }

    /// Stores the result columns of a finished conversation and its answers, in one transaction.
    public func saveResult(callID: String, result: ConversationResult, now: Date = Date()) async throws {
        try await write { [self] db in
            try db.execute(sql: "UPDATE calls SET summary = ?, task_completed = ?, duration_seconds = ?, ai_turns = ?, customer_turns = ? WHERE outbound_id = ?",
                           arguments: [sealed(result.summary), result.taskCompleted, result.durationSeconds, result.aiTurns, result.customerTurns, callID])
            try saveAnswers(callID: callID, answers: result.answers, now: now, in: db)
        }
    }

    public func addRecording(callID: String, path: String, bytes: Int, durationSeconds: Double, now: Date = Date()) async throws {
        try await write { db in
            try db.execute(sql: "INSERT INTO recordings (outbound_id, path, format, bytes, duration_seconds, created_at) VALUES (?, ?, 'wav', ?, ?, ?)",
                           arguments: [callID, path, bytes, durationSeconds, now])
        }
    }

    public func recordingPath(callID: String) async throws -> String? {
        try await read { try String.fetchOne($0, sql: "SELECT path FROM recordings WHERE outbound_id = ? ORDER BY id DESC LIMIT 1", arguments: [callID]) }
    }

    /// Sets the SIP Call-ID of the current attempt.
    public func setSIPCallID(callID: String, sipCallID: String) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE calls SET call_id = ? WHERE outbound_id = ?", arguments: [sipCallID, callID])
            try db.execute(sql: "UPDATE attempts SET sip_call_id = ? WHERE outbound_id = ? AND ended_at IS NULL", arguments: [sipCallID, callID])
        }
    }

    /// Who answered — human, machine or unknown — as our detector (with when, in ms after answer)
    /// or the carrier's says.
    public func setAnsweredBy(callID: String, _ answeredBy: String, afterMs: Int? = nil) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE calls SET answered_by = ?, answered_by_ms = ? WHERE outbound_id = ?", arguments: [answeredBy, afterMs, callID])
        }
    }
}

extension CallStore {
    /// Where the call was handed to a person, and how that went (answered, busy, no_answer, failed).
    public func setTransfer(callID: String, target: String, outcome: String) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE calls SET transferred_to = ?, transfer_outcome = ? WHERE outbound_id = ?", arguments: [target, outcome, callID])
        }
    }

    /// Appends an event to a call's history (a provider's status callback, for instance).
    public func appendEvent(callID: String, type: String, payload: [String: String], now: Date = Date()) async throws {
        try await write { db in
            var event = CallEvent(outboundId: callID, type: type, payload: Self.json(payload), createdAt: now)
            try event.insert(db)
        }
    }

    public func saveReport(callID: String, report: CallReport, now: Date = Date()) async throws {
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        try await write { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO call_reports (outbound_id, report, estimated_cost, currency, turns, barge_ins, first_audio_ms_total, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [callID, json, report.cost.total, report.cost.currency, report.turns.count, report.bargeIns,
                                 report.turns.reduce(0) { $0 + ($1.firstAudioMs ?? 0) }, now])
        }
    }

    public func report(callID: String) async throws -> CallReport? {
        let json = try await read { db in try String.fetchOne(db, sql: "SELECT report FROM call_reports WHERE outbound_id = ?", arguments: [callID]) }
        return try json.map { try JSONDecoder().decode(CallReport.self, from: Data($0.utf8)) }
    }
}
