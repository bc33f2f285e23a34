import Foundation

extension TaskTracker {
    /// Applies one `update_task_state` report — the tool call's arguments, or the JSON of a
    /// `[TASK_STATE]` tag: `{"question_id":"q1","status":"answered","answer_text":…,
    /// "answer_summary":…,"confidence":…}`. False when it is not such a report (nothing changes).
    public mutating func apply(report json: String) -> Bool {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any],
              let id = object["question_id"] as? String, let status = (object["status"] as? String).flatMap(Status.init) else {
            return false
        }
        update(questionID: id, status: status, answerText: object["answer_text"] as? String,
               summary: object["answer_summary"] as? String, confidence: (object["confidence"] as? Double) ?? 0.8)
        return true
    }
}
