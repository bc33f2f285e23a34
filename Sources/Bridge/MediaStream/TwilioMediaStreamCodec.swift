import Foundation
import NIOCore

/// The Twilio Media Streams JSON dialect (PROTOCOLS.md §1.2–1.3), both ways:
/// - a server (VoiceBridge's `/twilio/stream`) decodes events and encodes commands;
/// - a client (a SIP edge relaying to a remote VoiceBridge) encodes events and decodes commands.
///
/// Numbers Twilio sends as strings are also accepted as numbers. Fields the protocol requires are
/// required; unknown events are reported as such, not as errors, so a stream survives them.
public enum TwilioMediaStreamCodec {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case tooLarge(Int)
        case notJSONObject
        case missingField(String)
        case invalidField(String)
        case invalidBase64

        public var description: String {
            switch self {
            case .tooLarge(let n): "message of \(n) bytes exceeds \(TwilioMediaStreamCodec.maximumMessageSize)"
            case .notJSONObject: "not a JSON object"
            case .missingField(let f): "missing field \(f)"
            case .invalidField(let f): "invalid field \(f)"
            case .invalidBase64: "media.payload is not valid base64"
            }
        }
    }

    public enum Decoded<Message: Sendable>: Sendable {
        case message(Message, streamSid: String?)
        /// A known event that needs nothing from us (another dialect's acknowledgement).
        case acknowledged(String)
        case unknownEvent(String)
    }

    /// About 10 s of μ-law in one message; anything larger is refused unparsed.
    public static let maximumMessageSize = 128 * 1024

    // MARK: Events (Twilio → server)

    public static func decodeEvent(_ text: String) throws(Failure) -> Decoded<MediaStreamEvent> {
        if let fast = fastEvent(text) { return fast }
        return try parseEvent(text)
    }

    /// The general decoder: any event, through a full JSON parse; the final word on errors.
    static func parseEvent(_ text: String) throws(Failure) -> Decoded<MediaStreamEvent> {
        let object = try parseObject(text)
        guard let event = object["event"] as? String else { throw .missingField("event") }
        let streamSid = object["streamSid"] as? String
        switch event {
        case "connected":
            return .message(.connected(protocol: object["protocol"] as? String ?? "", version: object["version"] as? String ?? ""), streamSid: nil)
        case "start":
            guard let start = object["start"] as? [String: Any] else { throw .missingField("start") }
            guard let sid = start["streamSid"] as? String ?? streamSid else { throw .missingField("start.streamSid") }
            guard let callSid = start["callSid"] as? String else { throw .missingField("start.callSid") }
            let format = start["mediaFormat"] as? [String: Any] ?? [:]
            var parameters: [String: String] = [:]
            for (key, value) in start["customParameters"] as? [String: Any] ?? [:] { parameters[key] = "\(value)" }
            return .message(.start(MediaStreamStart(
                streamSid: sid, accountSid: start["accountSid"] as? String ?? "", callSid: callSid,
                tracks: start["tracks"] as? [String] ?? ["inbound"], customParameters: parameters,
                encoding: format["encoding"] as? String ?? "audio/x-mulaw", sampleRate: try integer(format["sampleRate"], "mediaFormat.sampleRate") ?? 8000,
                channels: try integer(format["channels"], "mediaFormat.channels") ?? 1)), streamSid: sid)
        case "media":
            guard let streamSid else { throw .missingField("streamSid") }
            guard let media = object["media"] as? [String: Any] else { throw .missingField("media") }
            guard let payload = media["payload"] as? String else { throw .missingField("media.payload") }
            guard let bytes = Data(base64Encoded: payload) else { throw .invalidBase64 }
            guard let timestamp = try integer(media["timestamp"], "media.timestamp") else { throw .missingField("media.timestamp") }
            return .message(.media(MediaStreamMedia(track: media["track"] as? String ?? "inbound", chunk: try integer(media["chunk"], "media.chunk") ?? 0,
                                                    timestamp: timestamp, payload: [UInt8](bytes))), streamSid: streamSid)
        case "dtmf":
            guard let dtmf = object["dtmf"] as? [String: Any], let digit = (dtmf["digit"] as? String)?.first else { throw .missingField("dtmf.digit") }
            return .message(.dtmf(track: dtmf["track"] as? String ?? "inbound_track", digit: digit), streamSid: streamSid)
        case "mark":
            guard let name = (object["mark"] as? [String: Any])?["name"] as? String else { throw .missingField("mark.name") }
            return .message(.mark(name), streamSid: streamSid)
        case "stop":
            return .message(.stop, streamSid: streamSid)
        default:
            return .unknownEvent(event)
        }
    }

    /// What a Twilio-dialect client sends (the SIP edge, or a test standing in for Twilio).
    public static func encodeEvent(_ event: MediaStreamEvent, streamSid: String, sequenceNumber: Int) -> String {
        let seq = "\"sequenceNumber\":\"\(sequenceNumber)\""
        switch event {
        case .connected(let proto, let version):
            return "{\"event\":\"connected\",\"protocol\":\(quote(proto)),\"version\":\(quote(version))}"
        case .start(let s):
            let parameters = s.customParameters.sorted { $0.key < $1.key }.map { "\(quote($0.key)):\(quote($0.value))" }.joined(separator: ",")
            return "{\"event\":\"start\",\(seq),\"start\":{\"accountSid\":\(quote(s.accountSid)),\"streamSid\":\(quote(s.streamSid)),"
                + "\"callSid\":\(quote(s.callSid)),\"tracks\":[\(s.tracks.map(quote).joined(separator: ","))],\"customParameters\":{\(parameters)},"
                + "\"mediaFormat\":{\"encoding\":\(quote(s.encoding)),\"sampleRate\":\(s.sampleRate),\"channels\":\(s.channels)}},\"streamSid\":\(quote(streamSid))}"
        case .media(let m):
            let prefix = "{\"event\":\"media\",\(seq),\"streamSid\":\(quote(streamSid)),\"media\":{\"track\":\(quote(m.track)),"
                + "\"chunk\":\"\(m.chunk)\",\"timestamp\":\"\(m.timestamp)\",\"payload\":\""
            return String(buffer: base64Message(prefix: prefix.utf8, payload: m.payload, suffix: "\"}}"))
        case .dtmf(let track, let digit):
            return "{\"event\":\"dtmf\",\"streamSid\":\(quote(streamSid)),\(seq),\"dtmf\":{\"track\":\(quote(track)),\"digit\":\(quote(String(digit)))}}"
        case .mark(let name):
            return "{\"event\":\"mark\",\(seq),\"streamSid\":\(quote(streamSid)),\"mark\":{\"name\":\(quote(name))}}"
        case .stop:
            return "{\"event\":\"stop\",\(seq),\"stop\":{},\"streamSid\":\(quote(streamSid))}"
        }
    }

    // MARK: Commands (server → Twilio)

    public static func encodeCommand(_ command: MediaStreamCommand, streamSid: String) -> String {
        switch command {
        case .media(let payload):
            return String(buffer: encodeMedia(payload, prefix: mediaPrefix(streamSid: streamSid).utf8))
        case .mark(let name):
            return "{\"event\":\"mark\",\"streamSid\":\(quote(streamSid)),\"mark\":{\"name\":\(quote(name))}}"
        case .clear:
            return "{\"event\":\"clear\",\"streamSid\":\(quote(streamSid))}"
        }
    }

    /// The part of every outbound `media` message before the payload; a leg builds it once.
    public static func mediaPrefix(streamSid: String) -> String {
        "{\"event\":\"media\",\"streamSid\":\(quote(streamSid)),\"media\":{\"payload\":\""
    }

    public static func decodeCommand(_ text: String) throws(Failure) -> Decoded<MediaStreamCommand> {
        if let fast = fastCommand(text) { return fast }
        return try parseCommand(text)
    }

    static func parseCommand(_ text: String) throws(Failure) -> Decoded<MediaStreamCommand> {
        let object = try parseObject(text)
        guard let event = object["event"] as? String else { throw .missingField("event") }
        let streamSid = object["streamSid"] as? String
        switch event {
        case "media":
            guard let payload = (object["media"] as? [String: Any])?["payload"] as? String else { throw .missingField("media.payload") }
            guard let bytes = Data(base64Encoded: payload) else { throw .invalidBase64 }
            return .message(.media([UInt8](bytes)), streamSid: streamSid)
        case "mark":
            guard let name = (object["mark"] as? [String: Any])?["name"] as? String else { throw .missingField("mark.name") }
            return .message(.mark(name), streamSid: streamSid)
        case "clear":
            return .message(.clear, streamSid: streamSid)
        default:
            return .unknownEvent(event)
        }
    }

    // MARK: Helpers

    static func parseObject(_ text: String) throws(Failure) -> [String: Any] {
        guard text.utf8.count <= maximumMessageSize else { throw .tooLarge(text.utf8.count) }
        guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8)), let object = value as? [String: Any] else {
            throw .notJSONObject
        }
        return object
    }

    /// A decimal integer sent as a JSON string or number; nil when absent.
    static func integer(_ value: Any?, _ field: String) throws(Failure) -> Int? {
        switch value {
        case nil: return nil
        case let string as String:
            guard let n = Int(string) else { throw .invalidField(field) }
            return n
        case let number as NSNumber:
            guard number.doubleValue.rounded() == number.doubleValue else { throw .invalidField(field) }
            return number.intValue
        default: throw .invalidField(field)
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
