import Foundation
import NIOCore
import Pipeline

/// Vonage's Voice API WebSocket (`/vonage/stream`; PROTOCOLS-4.md): the NCCO's `connect` action
/// with a `websocket` endpoint makes Vonage open the socket to this server. Unlike the other
/// providers' dialects the audio is binary:
///
/// | Vonage → server | server → Vonage |
/// |---|---|
/// | text, first: `{"event":"websocket:connected","content-type":"audio/l16;rate=16000", …}` with the endpoint's `headers` beside it | — |
/// | binary: 16-bit little-endian linear PCM at that rate, 20 ms a message | binary, the same format, 20 ms a message |
/// | text: `websocket:dtmf` `{digit, duration}` | text: `{"action":"clear"}` (barge-in) |
/// | text: `websocket:cleared`, `websocket:notify` (acknowledgements) | — |
///
/// Vonage has marks of its own (`notify`), but the leg does not use them: what Vonage has played is
/// counted here from what was sent (never more than 100 ms ahead), as for a SIP line — a live
/// call's played time then does not depend on an answer the provider may not send. The call ends
/// when the socket closes (Vonage sends no stop).
public enum VonageDialect {
    typealias Codec = TwilioMediaStreamCodec
    typealias Decoded = Codec.Decoded<MediaStreamEvent>

    /// The rates Vonage's `content-type` may name.
    public static let sampleRates: Set<Int> = [8_000, 16_000]

    static func decode(_ text: String) throws(Codec.Failure) -> Decoded {
        let object = try Codec.parseObject(text)
        guard let event = object["event"] as? String else { throw .missingField("event") }
        switch event {
        case "websocket:connected":
            guard let contentType = object["content-type"] as? String else { throw .missingField("content-type") }
            let rate = try sampleRate(contentType)
            // The endpoint's headers (the NCCO's `headers`, e.g. from, to, uuid) are the stream's
            // parameters; `from`/`to` pick the inbound route as on the other providers.
            var parameters = OtherDialects.strings(object, nil)
            parameters["event"] = nil
            parameters["content-type"] = nil
            let sid = "VG" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            return .message(.start(MediaStreamStart(streamSid: sid, callSid: parameters["uuid"] ?? sid, customParameters: parameters,
                                                    encoding: "audio/L16", sampleRate: rate)), streamSid: nil)
        case "websocket:dtmf":
            guard let digit = object["digit"] as? String ?? (object["dtmf"] as? [String: Any])?["digit"] as? String else { throw .missingField("digit") }
            guard digit.count == 1, let key = digit.first, "0123456789*#ABCD".contains(key) else { throw .invalidField("digit (one of 0-9, *, #, A-D)") }
            return .message(.dtmf(track: "inbound", digit: key), streamSid: nil)
        case "websocket:cleared", "websocket:notify":
            return .acknowledged(event)
        default:
            return .unknownEvent(event)
        }
    }

    /// `audio/l16;rate=16000` → 16000. Only linear 16-bit at 8 or 16 kHz is Vonage's.
    static func sampleRate(_ contentType: String) throws(Codec.Failure) -> Int {
        let parts = contentType.lowercased().split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first == "audio/l16" else { throw .invalidField("content-type (audio/l16 only)") }
        let rate = parts.dropFirst().compactMap { $0.hasPrefix("rate=") ? Int($0.dropFirst(5)) : nil }.first ?? 8_000
        guard sampleRates.contains(rate) else { throw .invalidField("content-type rate (8000 or 16000)") }
        return rate
    }

    /// Vonage's word for "drop what you have not played".
    public static let clear = #"{"action":"clear"}"#

    /// One 20 ms frame of the call's μ-law as Vonage's binary audio: 320 bytes at 8 kHz, 640 at
    /// 16 kHz (`widener` set, the stream's own).
    static func audio(_ frame: [UInt8], widener: inout Widener?) -> ByteBuffer {
        let samples = G711.decode(frame, law: .muLaw)
        return ByteBuffer(bytes: PCM16.bytes(widener?.widen(samples) ?? samples))
    }

    /// The call's 8 kHz as 16 kHz, every frame exactly twice as long: each sample, with the point
    /// half-way from the one before it in front of it. A resampling filter would cut the images
    /// better but hold samples back, and Vonage takes 20 ms messages; the audio is telephone band
    /// already and goes out to a telephone line, which filters what the interpolation leaves.
    struct Widener {
        private var previous: Int16 = 0

        mutating func widen(_ samples: [Int16]) -> [Int16] {
            var out = [Int16](repeating: 0, count: 2 * samples.count)
            for (i, sample) in samples.enumerated() {
                out[2 * i] = Int16((Int32(previous) + Int32(sample)) / 2)
                out[2 * i + 1] = sample
                previous = sample
            }
            return out
        }
    }
}
