import ArgumentParser
import Foundation
import HummingbirdWSClient
import Logging
import Synchronization

/// Follows one call over `/api/events`, printing its states and transcript lines as they come.
struct CallFollower {
    let base: String
    let token: String?

    struct Outcome: Sendable {
        var id: String
        var finalState: String
    }

    /// Connects, then runs `create` (which returns the new call's id), then prints that call's
    /// events until it ends.
    func follow(create: @escaping @Sendable () async throws -> String) async throws -> Outcome {
        var url = base.replacingOccurrences(of: "https://", with: "wss://").replacingOccurrences(of: "http://", with: "ws://") + "/api/events"
        if let token { url += "?access_token=\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token)" }
        let box = OutcomeBox()
        try await WebSocketClient.connect(url: url, logger: Logger(label: "voicebridge-call")) { inbound, outbound, _ in
            let id = try await create()
            box.set { $0.id = id }
            print("\(id): queued")
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message,
                      let event = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                      event["outbound_id"] as? String == id else { continue }
                let type = event["type"] as? String ?? ""
                let data = event["data"] as? [String: Any] ?? [:]
                switch type {
                case "transcript":
                    let speaker = data["speaker"] as? String == "ai" ? "AI      " : "callee  "
                    print("  \(speaker) \(data["text"] as? String ?? "")")
                case "outbound_progress":
                    if let progress = data["progress"] as? [String: Any] { print("  progress: \(progress["completed"] ?? 0)/\(progress["total"] ?? 0) questions") }
                case "outbound_queued":
                    continue
                default:
                    let state = data["state"] as? String ?? type.replacingOccurrences(of: "outbound_", with: "")
                    let reason = (data["reason"] as? String).map { " (\($0))" } ?? ""
                    print("\(id): \(state)\(reason)")
                    if ["completed", "no_answer", "busy", "rejected", "failed", "cancelled"].contains(state) {
                        box.set { $0.finalState = state }
                        try await outbound.close(.normalClosure, reason: nil)
                        return
                    }
                }
            }
        }
        let final = box.get()
        guard !final.finalState.isEmpty else {
            FileHandle.standardError.write(Data("voicebridge: the event stream closed before the call ended\n".utf8))
            throw ExitCode(1)
        }
        return final
    }
}

/// Shares the outcome between the WebSocket handler and the caller.
final class OutcomeBox: Sendable {
    private let outcome = Mutex(CallFollower.Outcome(id: "", finalState: ""))
    func set(_ change: (inout CallFollower.Outcome) -> Void) { outcome.withLock { change(&$0) } }
    func get() -> CallFollower.Outcome { outcome.withLock { $0 } }
}

/// The end-of-call printout: answers, summary, transcript.
enum CallReport {
    static func print(_ result: [String: Any]) {
        Swift.print("\nResult: \(result["state"] as? String ?? "?"), task completed: \((result["task_completed"] as? Bool).map { $0 ? "yes" : "no" } ?? "–"), \(result["duration_seconds"] as? Int ?? 0) s")
        for answer in result["answers"] as? [[String: Any]] ?? [] {
            let summary = (answer["answer_summary"] as? String).map { " → \($0)" } ?? ""
            Swift.print("  [\(answer["status"] as? String ?? "")] \(answer["question_text"] as? String ?? "")\(summary)")
        }
        if let summary = result["summary"] as? String, !summary.isEmpty { Swift.print("Summary: \(summary)") }
        Swift.print("Transcript:")
        for line in result["transcript"] as? [[String: Any]] ?? [] {
            let seconds = Int(line["timestamp"] as? Double ?? 0)
            Swift.print(String(format: "  [%02d:%02d] ", seconds / 60, seconds % 60) + "\(line["speaker"] as? String ?? ""): \(line["text"] as? String ?? "")")
        }
    }
}
