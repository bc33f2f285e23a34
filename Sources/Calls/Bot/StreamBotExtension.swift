import Dialogue
import Foundation
import Realtime

/// The messages a bot may send VoiceBridge beyond Twilio's three (`media`, `mark`, `clear`), so
/// the call's result is as complete as the local agent's: one event, `voicebridge`, whose object
/// says what it carries.
///
/// ```json
/// {"event":"voicebridge","streamSid":"MZ…","voicebridge":{"type":"transcript","speaker":"agent","text":"Hello!"}}
/// {"event":"voicebridge","streamSid":"MZ…","voicebridge":{"type":"answer","question_id":"q1","status":"answered",
///                                                       "answer":"Tuesday at 3","summary":"Tue 15:00","confidence":0.9}}
/// {"event":"voicebridge","streamSid":"MZ…","voicebridge":{"type":"hangup","reason":"goal reached"}}
/// ```
/// `speaker` is `agent` or `caller`; `status` is `answered`, `unclear`, `refused` or `pending`;
/// question ids are those of `customParameters.questions`. `hangup` ends the call once the audio
/// sent before it has played.
public enum StreamBotExtension: Sendable, Equatable {
    case transcript(speaker: Speaker, text: String)
    case answer(questionID: String, status: TaskTracker.Status, answer: String?, summary: String?, confidence: Double)
    case hangUp(reason: String)

    /// Sent to the bot in `customParameters.voicebridge_extension`.
    public static let version = "1"
    /// The `event` name these messages carry.
    public static let event = "voicebridge"

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// One `voicebridge` message's text; nil for a type this version does not know.
    public static func parse(_ text: String) throws(Failure) -> StreamBotExtension? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let body = object[event] as? [String: Any], let type = body["type"] as? String else {
            throw Failure(description: "a voicebridge message needs a \"voicebridge\" object with a \"type\"")
        }
        switch type {
        case "transcript":
            guard let text = body["text"] as? String else { throw Failure(description: "transcript needs \"text\"") }
            switch body["speaker"] as? String {
            case "agent": return .transcript(speaker: .ai, text: text)
            case "caller": return .transcript(speaker: .customer, text: text)
            default: throw Failure(description: "transcript speaker must be \"agent\" or \"caller\"")
            }
        case "answer":
            guard let id = body["question_id"] as? String else { throw Failure(description: "answer needs \"question_id\"") }
            guard let status = (body["status"] as? String).flatMap(TaskTracker.Status.init(rawValue:)), status != .notAsked else {
                throw Failure(description: "answer status must be answered, unclear, refused or pending")
            }
            let confidence = (body["confidence"] as? NSNumber)?.doubleValue ?? (status == .answered ? 1 : 0)
            return .answer(questionID: id, status: status, answer: body["answer"] as? String, summary: body["summary"] as? String, confidence: confidence)
        case "hangup":
            return .hangUp(reason: body["reason"] as? String ?? "the bot hung up")
        default:
            return nil
        }
    }
}
