import Dialogue
import Foundation

/// The server events of the OpenAI Realtime API the engine acts on (PROTOCOLS.md §3.3), GA names
/// and their beta aliases alike. Everything else is `.other(type)` and ignored.
enum RealtimeServerEvent: Equatable {
    struct FunctionCall: Equatable {
        var callID: String
        var name: String
        var arguments: String
    }

    case sessionCreated
    case sessionUpdated
    case audioDelta(itemID: String, bytes: [UInt8])
    case audioDone(itemID: String)
    case assistantTranscript(itemID: String, text: String)
    case callerTranscript(itemID: String, text: String)
    /// The caller's item could not be transcribed.
    case callerTranscriptFailed(itemID: String)
    case speechStarted(itemID: String?)
    /// The server VAD ended the caller's speech and committed it as `itemID`.
    case committed(itemID: String)
    case responseCreated
    /// `response.done`: its status and the function calls among its output items.
    case responseDone(status: String, functionCalls: [FunctionCall])
    case error(type: String, code: String?, message: String)
    case other(String)

    enum Failure: Error { case notAnEvent }

    static func decode(_ text: String) throws -> RealtimeServerEvent {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let type = object["type"] as? String else { throw Failure.notAnEvent }
        let item = object["item_id"] as? String ?? ""
        switch type {
        case "session.created": return .sessionCreated
        case "session.updated": return .sessionUpdated
        case "response.output_audio.delta", "response.audio.delta":
            guard let delta = object["delta"] as? String, let bytes = Data(base64Encoded: delta) else { throw Failure.notAnEvent }
            return .audioDelta(itemID: item, bytes: [UInt8](bytes))
        case "response.output_audio.done", "response.audio.done":
            return .audioDone(itemID: item)
        case "response.output_audio_transcript.done", "response.audio_transcript.done":
            return .assistantTranscript(itemID: item, text: object["transcript"] as? String ?? "")
        case "conversation.item.input_audio_transcription.completed":
            return .callerTranscript(itemID: item, text: object["transcript"] as? String ?? "")
        case "conversation.item.input_audio_transcription.failed":
            return .callerTranscriptFailed(itemID: item)
        case "input_audio_buffer.speech_started":
            return .speechStarted(itemID: object["item_id"] as? String)
        case "input_audio_buffer.committed":
            return .committed(itemID: item)
        case "response.created":
            return .responseCreated
        case "response.done":
            let response = object["response"] as? [String: Any] ?? [:]
            let calls = (response["output"] as? [[String: Any]] ?? []).compactMap { output -> FunctionCall? in
                guard output["type"] as? String == "function_call", let name = output["name"] as? String else { return nil }
                return FunctionCall(callID: output["call_id"] as? String ?? "", name: name, arguments: output["arguments"] as? String ?? "{}")
            }
            return .responseDone(status: response["status"] as? String ?? "completed", functionCalls: calls)
        case "error":
            let error = object["error"] as? [String: Any] ?? [:]
            return .error(type: error["type"] as? String ?? "", code: error["code"] as? String, message: error["message"] as? String ?? "")
        default:
            return .other(type)
        }
    }
}

/// Client events the engine sends (PROTOCOLS.md §3.2), as JSON text.
enum RealtimeClientEvent {
    static func json(_ object: [String: Any]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// GA `session.update`: instructions, G.711 μ-law both ways, server VAD, input transcription, the call's tools.
    /// The server VAD neither answers nor cuts on its own: speech over the agent may be a
    /// backchannel, so the engine decides both once the words are known (`+Overlap`).
    static func sessionUpdate(instructions: String, voice: String, language: String, vad: OpenAIRealtimeEngine.VAD,
                              tools: [(name: String, description: String, parameters: String)]) -> String {
        let tools: [[String: Any]] = tools.map { tool in
            ["type": "function", "name": tool.name, "description": tool.description,
             "parameters": (try? JSONSerialization.jsonObject(with: Data(tool.parameters.utf8))) ?? [:]]
        }
        return json(["type": "session.update", "session": [
            "type": "realtime",
            "output_modalities": ["audio"],
            "instructions": instructions,
            "audio": [
                "input": [
                    "format": ["type": "audio/pcmu"],
                    "transcription": ["model": "gpt-4o-mini-transcribe", "language": String(language.prefix(2))],
                    "turn_detection": ["type": "server_vad", "threshold": vad.threshold, "prefix_padding_ms": vad.prefixPaddingMs,
                                       "silence_duration_ms": vad.silenceDurationMs, "create_response": false, "interrupt_response": false],
                ],
                "output": ["format": ["type": "audio/pcmu"], "voice": voice],
            ],
            "tools": tools,
            "tool_choice": "auto",
        ] as [String: Any]])
    }

    /// A `session.update` that changes only the instructions (a flow's next step).
    static func instructionsUpdate(_ instructions: String) -> String {
        json(["type": "session.update", "session": ["type": "realtime", "instructions": instructions]])
    }

    static func append(_ muLaw: [UInt8]) -> String {
        // Hand-built: this one goes out 50 times a second per call.
        #"{"audio":"\#(Data(muLaw).base64EncodedString())","type":"input_audio_buffer.append"}"#
    }

    static func responseCreate(instructions: String? = nil) -> String {
        guard let instructions else { return json(["type": "response.create"]) }
        return json(["type": "response.create", "response": ["instructions": instructions]])
    }

    static let responseCancel = #"{"type":"response.cancel"}"#

    /// Removes a caller item the model should not answer (a backchannel, a cough).
    static func deleteItem(_ itemID: String) -> String {
        json(["type": "conversation.item.delete", "item_id": itemID])
    }

    static func truncate(itemID: String, audioEndMilliseconds: Int) -> String {
        json(["type": "conversation.item.truncate", "item_id": itemID, "content_index": 0, "audio_end_ms": audioEndMilliseconds])
    }

    static func functionOutput(callID: String, output: String) -> String {
        json(["type": "conversation.item.create", "item": ["type": "function_call_output", "call_id": callID, "output": output]])
    }

    /// A past line of the conversation, replayed into a new session after a reconnect.
    static func restoredMessage(speaker: Speaker, text: String) -> String {
        let role = speaker == .ai ? "assistant" : "user"
        let content: [String: Any] = ["type": speaker == .ai ? "output_text" : "input_text", "text": text]
        return json(["type": "conversation.item.create", "item": ["type": "message", "role": role, "content": [content]]])
    }
}
