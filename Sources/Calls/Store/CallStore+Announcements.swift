import Foundation
import Tools

/// What a call's end announces, written in the transaction that ends it: its webhook deliveries
/// (`WebhookStore`), its `on_end` tool runs and its analysis.
extension CallStore {
    /// A call's final outcome, as its webhook announces it: the result without the transcript
    /// (`/api/outbound/{id}` has everything), kept well under Standard Webhooks' 20 kB advice.
    func enqueueCallWebhook(_ call: CallRecord, now: Date, in sql: any SQLConnection) throws {
        var data: [String: Any] = [
            "outbound_id": call.outboundId, "direction": call.direction.rawValue, "state": call.state.rawValue,
            "caller_number": call.callerNumber, "callee_number": call.calleeNumber, "purpose": call.purpose,
            "attempt_count": call.attemptCount, "created_at": Self.iso8601(call.createdAt),
        ]
        let optional: [String: Any?] = [
            "reason": call.failureReason, "campaign_id": call.campaignId, "template_id": call.templateId,
            "answered_by": call.answeredBy, "summary": try opened(call.summary) as Any?, "task_completed": call.taskCompleted,
            "duration_seconds": call.durationSeconds, "completed_at": call.completedAt.map(Self.iso8601),
            "answered_at": call.answeredAt.map(Self.iso8601), "outcome": call.outcome, "languages_spoken": call.languagesSpoken,
        ]
        for case let (key, value?) in optional { data[key] = value }
        if let flow = try CallFlowResult(stored: opened(call.flowResult)) {
            data["flow_path"] = flow.path
            data["fields"] = try JSONSerialization.jsonObject(with: Data(JSONValue.object(flow.typedFields).serialized.utf8))
        }
        let answers = try sql.rows("SELECT * FROM answers WHERE outbound_id = ? ORDER BY question_id", call.outboundId).map(answer)
        data["answers"] = answers.map { answer -> [String: Any] in
            var item: [String: Any] = ["question_id": answer.questionID, "question": answer.question, "status": answer.status.rawValue]
            if let text = answer.answerSummary ?? answer.answerText { item["answer"] = text }
            return item
        }
        try webhooks.enqueue(WebhookEventType(finalState: call.state), data: data, outboundID: call.outboundId,
                             campaignID: call.campaignId, now: now, in: sql)
        try enqueueAfterCallTools(call, result: data, now: now, in: sql)
        try enqueueAnalysis(call, now: now, in: sql)
    }

    static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
