import Foundation
import Pipeline

/// Decoders for the dialects other than Twilio's (PROTOCOLS.md §2.1, §2.3, §2.4), from the
/// providers' documented messages. Each gives the same events as Twilio's: audio as μ-law, a
/// played checkpoint as `mark`, the call's numbers in `customParameters` where the provider sends
/// them. Acknowledgements that need nothing are `acknowledged`; events this server does not know
/// are `unknownEvent`; a message that breaks the dialect's rules throws.
enum OtherDialects {
    typealias Codec = TwilioMediaStreamCodec
    typealias Decoded = Codec.Decoded<MediaStreamEvent>

    // MARK: Telnyx (snake_case, stream_id at the top)

    static func decodeTelnyx(_ text: String) throws(Codec.Failure) -> Decoded {
        let (object, event, sid) = try envelope(text, streamKey: "stream_id")
        switch event {
        case "connected":
            return .message(.connected(protocol: "Call", version: object["version"] as? String ?? ""), streamSid: nil)
        case "start":
            guard let start = object["start"] as? [String: Any] else { throw .missingField("start") }
            guard let sid else { throw .missingField("stream_id") }
            let format = start["media_format"] as? [String: Any] ?? [:]
            guard (format["encoding"] as? String ?? "PCMU").uppercased() == "PCMU" else { throw .invalidField("start.media_format.encoding (PCMU only)") }
            guard try Codec.integer(format["sample_rate"], "start.media_format.sample_rate") ?? 8000 == 8000 else { throw .invalidField("start.media_format.sample_rate (8000 only)") }
            var parameters = strings(start, ["from", "to", "call_control_id", "user_id"])
            if let state = start["client_state"] as? String {
                parameters["client_state"] = Data(base64Encoded: state).flatMap { String(data: $0, encoding: .utf8) } ?? state
            }
            return .message(.start(MediaStreamStart(streamSid: sid, callSid: start["call_control_id"] as? String ?? sid,
                                                    customParameters: parameters, encoding: "audio/x-mulaw")), streamSid: sid)
        case "error":
            return .acknowledged("error: \(object["payload"].map { "\($0)" } ?? "")")
        default:
            return try common(event, object, streamSid: sid, streamKey: "stream_id", pcm16: false)
        }
    }

    // MARK: Plivo (camelCase, numbers as numbers, checkpoints)

    static func decodePlivo(_ text: String) throws(Codec.Failure) -> Decoded {
        let (object, event, sid) = try envelope(text, streamKey: "streamId")
        switch event {
        case "start":
            guard let start = object["start"] as? [String: Any] else { throw .missingField("start") }
            guard let sid = start["streamId"] as? String ?? sid else { throw .missingField("start.streamId") }
            let format = start["mediaFormat"] as? [String: Any] ?? [:]
            guard (format["encoding"] as? String ?? "audio/x-mulaw") == "audio/x-mulaw" else {
                throw .invalidField("start.mediaFormat.encoding (set the <Stream> contentType to audio/x-mulaw;rate=8000)")
            }
            var parameters: [String: String] = [:]
            for pair in (object["extra_headers"] as? String ?? "").split(whereSeparator: { $0 == ";" || $0 == "," }) {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { parameters[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces) }
            }
            parameters.merge(strings(start, ["from", "to"])) { _, new in new }
            return .message(.start(MediaStreamStart(streamSid: sid, accountSid: start["accountId"] as? String ?? "", callSid: start["callId"] as? String ?? sid,
                                                    tracks: start["tracks"] as? [String] ?? ["inbound"], customParameters: parameters)), streamSid: sid)
        case "playedStream", "played":
            guard let name = object["name"] as? String else { throw .missingField("name") }
            return .message(.mark(name), streamSid: sid)
        case "clearedAudio":
            return .acknowledged(event)
        default:
            return try common(event, object, streamSid: sid, streamKey: "streamId", pcm16: false)
        }
    }

    // MARK: Exotel (snake_case, 16-bit PCM)

    static func decodeExotel(_ text: String) throws(Codec.Failure) -> Decoded {
        let (object, event, sid) = try envelope(text, streamKey: "stream_sid")
        switch event {
        case "connected":
            return .message(.connected(protocol: "Call", version: ""), streamSid: nil)
        case "start":
            guard let start = object["start"] as? [String: Any] else { throw .missingField("start") }
            guard let sid = start["stream_sid"] as? String ?? sid else { throw .missingField("start.stream_sid") }
            let format = start["media_format"] as? [String: Any] ?? [:]
            guard try Codec.integer(format["sample_rate"], "start.media_format.sample_rate") ?? 8000 == 8000 else { throw .invalidField("start.media_format.sample_rate (8000 only)") }
            var parameters = strings(start["custom_parameters"] as? [String: Any] ?? [:], nil)
            parameters.merge(strings(start, ["from", "to"])) { _, new in new }
            return .message(.start(MediaStreamStart(streamSid: sid, accountSid: start["account_sid"] as? String ?? "", callSid: start["call_sid"] as? String ?? sid,
                                                    customParameters: parameters)), streamSid: sid)
        default:
            return try common(event, object, streamSid: sid, streamKey: "stream_sid", pcm16: true)
        }
    }

    // MARK: Shared

    /// The message's object, its `event` and its stream id (under the dialect's key).
    private static func envelope(_ text: String, streamKey: String) throws(Codec.Failure) -> ([String: Any], String, String?) {
        let object = try Codec.parseObject(text)
        guard let event = object["event"] as? String else { throw .missingField("event") }
        return (object, event, object[streamKey] as? String)
    }

    /// The events the dialects share: `media`, `dtmf`, `mark` (`mark.name`), `stop`; anything else is unknown.
    private static func common(_ event: String, _ object: [String: Any], streamSid sid: String?, streamKey: String, pcm16: Bool) throws(Codec.Failure) -> Decoded {
        switch event {
        case "media":
            guard let sid else { throw .missingField(streamKey) }
            return try media(object, streamSid: sid, pcm16: pcm16)
        case "dtmf":
            guard let digit = ((object["dtmf"] as? [String: Any])?["digit"] as? String)?.first else { throw .missingField("dtmf.digit") }
            return .message(.dtmf(track: "inbound_track", digit: digit), streamSid: sid)
        case "mark":
            guard let name = (object["mark"] as? [String: Any])?["name"] as? String else { throw .missingField("mark.name") }
            return .message(.mark(name), streamSid: sid)
        case "stop":
            return .message(.stop, streamSid: sid)
        default:
            return .unknownEvent(event)
        }
    }

    private static func media(_ object: [String: Any], streamSid: String, pcm16: Bool) throws(Codec.Failure) -> Decoded {
        guard let media = object["media"] as? [String: Any] else { throw .missingField("media") }
        guard let payload = media["payload"] as? String else { throw .missingField("media.payload") }
        guard let data = Data(base64Encoded: payload) else { throw .invalidBase64 }
        if let track = media["track"] as? String, track.hasPrefix("outbound") { return .acknowledged("media on the outbound track") }
        var bytes = [UInt8](data)
        if pcm16 {
            guard bytes.count % 2 == 0 else { throw .invalidField("media.payload (16-bit PCM of an odd length)") }
            bytes = G711.encode(PCM16.samples(bytes), law: .muLaw)
        }
        return .message(.media(MediaStreamMedia(track: "inbound", chunk: try Codec.integer(media["chunk"], "media.chunk") ?? 0,
                                                timestamp: try Codec.integer(media["timestamp"], "media.timestamp") ?? 0, payload: bytes)), streamSid: streamSid)
    }

    /// String (or number) values of `keys` (nil: every key) as text.
    static func strings(_ object: [String: Any], _ keys: [String]?) -> [String: String] {
        var out: [String: String] = [:]
        for (key, value) in object where keys?.contains(key) ?? true {
            if let text = value as? String { out[key] = text } else if let number = value as? NSNumber { out[key] = number.stringValue }
        }
        return out
    }
}
