import Analysis
import Dialogue
import Flows
import Foundation
import Realtime

/// Post-call analyses: the outbox their runs come from, what a run reads of the call, and the
/// analysis stored with its `call.analyzed` webhook in one transaction.
extension CallStore {
    /// Writes the call's analysis job when it completed and its template version asks for one
    /// (inside the transaction that completes it).
    func enqueueAnalysis(_ call: CallRecord, now: Date, in sql: any SQLConnection) throws {
        guard call.state == .completed, let id = call.templateId, let version = call.templateVersion,
              try Self.templateVersion(of: id, version, in: sql)?.analysis != nil else { return }
        try sql.execute("INSERT INTO call_analyses (outbound_id, state, attempt_count, next_attempt_at, created_at) VALUES (?, 'pending', 0, ?, ?)",
                        call.outboundId, now, now)
        sql.notes.wroteOutbox = true
    }

    /// When the earliest pending analysis is due; nil: none is pending.
    public func nextAnalysisAttempt() async throws -> Date? {
        try await sqlRead { try $0.scalar(Date.self, "SELECT MIN(next_attempt_at) FROM call_analyses WHERE state = 'pending'") }
    }

    /// Claims up to `limit` due analyses; each one's next attempt moves `lease` ahead (see `WebhookStore.claimDue`).
    public func claimDueAnalyses(now: Date = Date(), limit: Int, lease: TimeInterval) async throws -> [CallAnalysisJob] {
        try await sqlWrite { sql in
            let due = try sql.fetchAll(CallAnalysisJob.self, """
                SELECT * FROM call_analyses WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?\(sql.dialect.skipLocked)
                """, [.date(now), .integer(Int64(limit))])
            for job in due { try sql.execute("UPDATE call_analyses SET next_attempt_at = ? WHERE outbound_id = ?", now.addingTimeInterval(lease), job.outboundId) }
            return due
        }
    }

    /// What the analysis of `callID` reads: its template's spec and the ended call; nil when
    /// either is gone.
    public func analysisInput(callID: String) async throws -> (AnalysisSpec, AnalysisInput)? {
        guard let call = try await call(id: callID), let id = call.templateId, let version = call.templateVersion,
              let template = try await template(id: id, version: version), let spec = template.analysis else { return nil }
        let answers = try await answers(callID: callID)
        let transcript = try await transcript(callID: callID)
        let flow = try CallFlowResult(stored: call.flowResult)
        let input = AnalysisInput(
            purpose: call.purpose,
            transcript: transcript.map { AnalysisInput.Line($0.entry) }.filter { !$0.text.hasPrefix("[tool ") },
            answers: answers.map(AnalysisInput.Answer.init),
            fields: flow?.fields ?? [:], outcome: call.outcome,
            flowOutcomes: template.flow?.steps.compactMap(\.outcome) ?? [], taskCompleted: call.taskCompleted ?? false)
        return (spec, input)
    }

    /// Stores an attempt's verdict; with an analysis (the model's, or the offline one once the
    /// model is given up on), stores it and announces it (`call.analyzed`) in the same transaction.
    public func finishAnalysisAttempt(_ job: CallAnalysisJob, at: Date, status: Int?, error: String?, verdict: WebhookRetryPolicy.Verdict,
                                      analysis: CallAnalysis?) async throws {
        try await sqlWrite { [self] sql in
            var job = job
            job.record(attemptAt: at, status: status, error: error, verdict: verdict, gone: "the model's endpoint answered 410 Gone")
            try sql.update(job, in: "call_analyses", key: "outbound_id")
            guard let analysis else { return }
            let json = String(decoding: try JSONEncoder.sorted.encode(analysis), as: UTF8.self)
            try sql.execute("UPDATE calls SET analysis = ? WHERE outbound_id = ?", sealed(json), job.outboundId)
            guard let call = try sql.fetchOne(CallRecord.self, "SELECT * FROM calls WHERE outbound_id = ?", [job.outboundId.sqlValue]) else { return }
            var data: [String: Any] = ["outbound_id": call.outboundId, "state": call.state.rawValue,
                                       "analysis": try JSONSerialization.jsonObject(with: Data(json.utf8))]
            for case let (key, value?) in ["campaign_id": call.campaignId, "template_id": call.templateId, "outcome": call.outcome] { data[key] = value }
            try webhooks.enqueue(.callAnalyzed, data: data, outboundID: call.outboundId, campaignID: call.campaignId, now: at, in: sql)
            // The event stream tells pages showing the call (the analysis comes after its end).
            try Self.append(CallEvent(outboundId: call.outboundId, type: "\(call.direction.eventPrefix)_analyzed",
                                      payload: Self.json(["method": analysis.method.rawValue, "success": analysis.success ? "true" : "false"]), createdAt: at), in: sql)
        }
    }

    /// The call's analysis, opened; nil until it ran.
    public func analysis(callID: String) async throws -> CallAnalysis? {
        try await call(id: callID)?.analysis.map { try JSONDecoder().decode(CallAnalysis.self, from: Data($0.utf8)) }
    }

    public func analysisJob(callID: String) async throws -> CallAnalysisJob? {
        try await sqlRead { try $0.fetchOne(CallAnalysisJob.self, "SELECT * FROM call_analyses WHERE outbound_id = ?", [callID.sqlValue]) }
    }
}

extension JSONEncoder {
    /// Keys sorted: stored JSON that reads the same every time.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}

extension AnalysisInput.Line {
    /// A stored transcript line as an analysis (or a briefing) reads it.
    init(_ entry: TranscriptEntry) { self.init(speaker: entry.speaker.rawValue, text: entry.text) }
}

extension AnalysisInput.Answer {
    /// A question's stored state as an analysis (or a briefing) reads it.
    init(_ answer: TaskTracker.Answer) {
        self.init(id: answer.questionID, question: answer.question, status: answer.status.rawValue, answer: answer.answerSummary ?? answer.answerText)
    }
}
