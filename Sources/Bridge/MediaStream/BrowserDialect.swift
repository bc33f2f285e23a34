import Foundation
import Pipeline

/// The server's own media-stream dialect, for the dashboard's "Try it" (`/browser/stream`): the
/// operator's microphone as the caller. JSON text messages, shaped like the providers':
///
/// | browser → server | server → browser |
/// |---|---|
/// | `start`: `start.media_format` `{encoding: "audio/L16", sample_rate}` (8–48 kHz, the page sends 16 kHz), `start.call`: the call, as `POST /api/outbound` takes it (numbers optional) | `call` `{call_id}` once stored, or `error` `{message}` |
/// | `media`: `media.payload`, base64 16-bit little-endian PCM at that rate | `media`: the same at 8 kHz (the call path is telephone band) |
/// | `mark` `{mark: {name}}`: that audio has played | `mark` `{mark: {name}}`, `clear`: drop what is queued (barge-in); `pause`, `resume`: hold what is queued while the caller's speech over the agent is judged |
/// | `stop` | — (the socket closes when the call ends) |
///
/// The leg (`MediaStreamSocketLeg`) resamples the microphone to the call's 8 kHz.
public enum BrowserDialect {
    typealias Codec = TwilioMediaStreamCodec
    typealias Decoded = Codec.Decoded<MediaStreamEvent>

    /// Sample rates a page may send (an AudioContext runs at 8–48 kHz).
    static let sampleRates = 8_000...48_000

    static func decode(_ text: String) throws(Codec.Failure) -> Decoded {
        let object = try Codec.parseObject(text)
        guard let event = object["event"] as? String else { throw .missingField("event") }
        switch event {
        case "start":
            guard let start = object["start"] as? [String: Any] else { throw .missingField("start") }
            let format = start["media_format"] as? [String: Any] ?? [:]
            guard (format["encoding"] as? String ?? "audio/L16").lowercased() == "audio/l16" else { throw .invalidField("start.media_format.encoding (audio/L16 only)") }
            let rate = try Codec.integer(format["sample_rate"], "start.media_format.sample_rate") ?? 16_000
            guard sampleRates.contains(rate) else { throw .invalidField("start.media_format.sample_rate (8000 to 48000)") }
            guard let call = start["call"] as? [String: Any], let json = try? JSONSerialization.data(withJSONObject: call) else { throw .missingField("start.call") }
            let sid = "BR" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            return .message(.start(MediaStreamStart(streamSid: sid, callSid: sid, customParameters: ["call": String(decoding: json, as: UTF8.self)],
                                                    encoding: "audio/L16", sampleRate: rate)), streamSid: nil)
        case "media":
            guard let media = object["media"] as? [String: Any] else { throw .missingField("media") }
            guard let payload = media["payload"] as? String else { throw .missingField("media.payload") }
            guard let data = Data(base64Encoded: payload) else { throw .invalidBase64 }
            guard data.count % 2 == 0 else { throw .invalidField("media.payload (16-bit PCM of an odd length)") }
            // Linear PCM at the start's rate: the leg makes it the call's μ-law.
            return .message(.media(MediaStreamMedia(track: "inbound", chunk: 0, timestamp: 0, payload: [UInt8](data))), streamSid: nil)
        case "mark":
            guard let name = (object["mark"] as? [String: Any])?["name"] as? String else { throw .missingField("mark.name") }
            return .message(.mark(name), streamSid: nil)
        case "stop":
            return .message(.stop, streamSid: nil)
        default:
            return .unknownEvent(event)
        }
    }

    /// The server's answer to a `start`: the call's id, once stored.
    public static func callMessage(id: String) -> String { #"{"event":"call","call_id":\#(Codec.quote(id))}"# }

    /// Why there is no call (a bad request, no engine, the call limit).
    public static func errorMessage(_ message: String) -> String { #"{"event":"error","message":\#(Codec.quote(message))}"# }

    static let mediaPrefix = #"{"event":"media","media":{"payload":""#
}
