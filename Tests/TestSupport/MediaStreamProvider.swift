import Bridge
import Foundation
import NIOCore
import Pipeline

/// What a media-stream provider (Twilio, Telnyx, Plivo, Exotel, Vonage) sends on a call's stream, and how
/// it reads what it gets, in that provider's documented words: the server's tests over a real
/// WebSocket and the call tests in virtual time speak through it.
public struct MediaStreamProvider: Sendable {
    public let dialect: MediaStreamDialect
    public let sid: String

    public init(dialect: MediaStreamDialect, sid: String = "stream-1") {
        self.dialect = dialect
        self.sid = sid
    }

    /// One WebSocket message: text in every dialect but Vonage's audio, which is binary.
    public enum Message: Sendable, Equatable {
        case text(String)
        case binary([UInt8])

        public var text: String? { if case .text(let text) = self { text } else { nil } }
    }

    /// The rate Vonage's stream is set to here (`content-type: audio/l16;rate=16000`, the NCCO's
    /// usual choice: the recognizer hears the wider band).
    public static let vonageRate = 16_000

    /// The stream's `start`, from +15550001111 to +15550002222 where the dialect carries numbers.
    public var start: String {
        switch dialect {
        case .twilio: #"{"event":"start","sequenceNumber":"1","start":{"accountSid":"AC1","streamSid":"\#(sid)","callSid":"CA1","tracks":["inbound"],"customParameters":{"from":"+15550001111","to":"+15550002222"},"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1}},"streamSid":"\#(sid)"}"#
        case .telnyx: #"{"event":"start","sequence_number":"1","start":{"call_control_id":"v3:c1","media_format":{"encoding":"PCMU","sample_rate":8000,"channels":1}},"stream_id":"\#(sid)"}"#
        case .plivo: #"{"event":"start","sequenceNumber":1,"start":{"callId":"c1","streamId":"\#(sid)","accountId":"MA1","tracks":["inbound"],"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000}},"extra_headers":"from=+15550001111;to=+15550002222"}"#
        case .exotel: #"{"event":"start","sequence_number":"1","stream_sid":"\#(sid)","start":{"stream_sid":"\#(sid)","call_sid":"c1","account_sid":"a1","from":"+15550001111","to":"+15550002222","custom_parameters":{},"media_format":{"encoding":"audio/x-raw","sample_rate":"8000","bit_rate":"16"}}}"#
        // The NCCO's endpoint headers (from, to, uuid) come beside the event and the format.
        case .vonage: #"{"event":"websocket:connected","content-type":"audio/l16;rate=\#(Self.vonageRate)","from":"+15550001111","to":"+15550002222","uuid":"\#(sid)"}"#
        case .browser: ""   // not a provider: DashboardTryTests
        }
    }

    /// Whether the dialect's `start` names the call's numbers (Telnyx's does not).
    public var carriesNumbers: Bool { dialect != .telnyx && dialect != .browser }

    /// How many 20 ms frames the provider puts in one `media` message (Exotel sends ~100 ms at a time).
    public var framesPerMessage: Int { dialect == .exotel ? 5 : 1 }

    /// The bytes of one 20 ms frame of the server's audio in the dialect (Exotel: 16-bit PCM;
    /// Vonage: 16-bit PCM at 16 kHz).
    public var frameBytes: Int {
        switch dialect {
        case .exotel: 320
        case .vonage: 2 * Self.vonageRate / 50
        default: 160
        }
    }

    /// `frames` (20 ms μ-law each, concatenated) as one audio message, the first being frame `n`.
    public func media(_ n: Int, _ frames: [UInt8]) -> Message {
        if dialect == .vonage {
            // 16 kHz: each 8 kHz sample twice (a tone's frequencies stay where they were).
            let samples = G711.decode(frames, law: .muLaw).flatMap { [$0, $0] }
            return .binary(samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] })
        }
        return .text(mediaText(n, frames))
    }

    private func mediaText(_ n: Int, _ frames: [UInt8]) -> String {
        switch dialect {
        case .twilio: return #"{"event":"media","media":{"track":"inbound","chunk":"\#(n)","timestamp":"\#(n * 20)","payload":"\#(Data(frames).base64EncodedString())"},"streamSid":"\#(sid)"}"#
        case .telnyx: return #"{"event":"media","sequence_number":"\#(n + 2)","media":{"track":"inbound","chunk":"\#(n)","timestamp":"\#(n * 20)","payload":"\#(Data(frames).base64EncodedString())"},"stream_id":"\#(sid)"}"#
        case .plivo: return #"{"event":"media","sequenceNumber":\#(n + 2),"streamId":"\#(sid)","media":{"track":"inbound","timestamp":"\#(1_705_312_200_000 + n * 20)","chunk":\#(n),"payload":"\#(Data(frames).base64EncodedString())"}}"#
        case .exotel:
            let pcm = G711.decode(frames, law: .muLaw).flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
            return #"{"event":"media","sequence_number":"\#(n + 2)","stream_sid":"\#(sid)","media":{"chunk":"\#(n)","timestamp":"\#(n * 20)","payload":"\#(Data(pcm).base64EncodedString())"}}"#
        case .browser, .vonage: return ""
        }
    }

    /// The stream's end; nil for Vonage, whose stream ends when the socket closes.
    public var stop: String? {
        switch dialect {
        case .twilio: #"{"event":"stop","streamSid":"\#(sid)"}"#
        case .telnyx: #"{"event":"stop","stop":{"call_control_id":"v3:c1"},"stream_id":"\#(sid)"}"#
        case .plivo: #"{"event":"stop","streamId":"\#(sid)"}"#
        case .exotel: #"{"event":"stop","stream_sid":"\#(sid)"}"#
        case .browser: ""
        case .vonage: nil
        }
    }

    public enum Heard: Equatable, Sendable { case media(payload: [UInt8]), mark(String), clear, other }

    /// What a message from the server is, read as the provider reads it (Vonage's audio: the
    /// binary message's bytes).
    public func read(_ message: Message) -> Heard {
        switch message {
        case .text(let text): read(text)
        case .binary(let bytes): dialect == .vonage ? .media(payload: bytes) : .other
        }
    }

    public func read(_ text: String) -> Heard {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return .other }
        let event = object["event"] as? String
        switch (dialect, event) {
        case (.plivo, "playAudio"), (_, "media"):
            let payload = (object["media"] as? [String: Any])?["payload"] as? String ?? ""
            return .media(payload: Data(base64Encoded: payload).map(Array.init) ?? [])
        case (.plivo, "checkpoint"): return .mark(object["name"] as? String ?? "")
        case (.plivo, "clearAudio"), (.twilio, "clear"), (.telnyx, "clear"), (.exotel, "clear"): return .clear
        case (.vonage, nil) where object["action"] as? String == "clear": return .clear
        case (_, "mark"): return .mark((object["mark"] as? [String: Any])?["name"] as? String ?? "")
        default: return .other
        }
    }

    /// The provider's word that the audio before `name` has played (Vonage is sent no marks).
    public func played(_ name: String) -> String? {
        switch dialect {
        case .plivo: #"{"event":"playedStream","streamId":"\#(sid)","name":"\#(name)"}"#
        case .telnyx: #"{"event":"mark","stream_id":"\#(sid)","mark":{"name":"\#(name)"}}"#
        case .exotel: #"{"event":"mark","stream_sid":"\#(sid)","mark":{"name":"\#(name)"}}"#
        case .twilio: #"{"event":"mark","streamSid":"\#(sid)","mark":{"name":"\#(name)"}}"#
        case .browser: ""
        case .vonage: nil
        }
    }

    /// `frames` 20 ms μ-law frames of the DTMF key whose tones are `row` and `column` Hz.
    public static func dtmf(_ row: Double, _ column: Double, frames: Int) -> [[UInt8]] {
        (0..<frames).map { f in (0..<160).map { i in
            let t = Double(f * 160 + i) / 8000
            return G711.encodeMuLaw(Int16(6000 * sin(2 * Double.pi * row * t) + 6000 * sin(2 * Double.pi * column * t)))
        } }
    }

    /// Frame `n` (20 ms, μ-law) of a continuous 400 Hz tone, or μ-law silence when `on` is false.
    public static func toneFrame(_ n: Int, on: Bool = true) -> [UInt8] {
        (0..<160).map { i in on ? G711.encodeMuLaw(Int16(6000 * sin(2 * Double.pi * 400 * Double(n * 160 + i) / 8000))) : 0xFF }
    }
}

extension MediaStreamSocketLeg {
    /// A provider's message, as the server's WebSocket route hands it to the leg.
    @discardableResult
    public func receive(_ message: MediaStreamProvider.Message) -> Received {
        switch message {
        case .text(let text): receive(text)
        case .binary(let bytes): receive(audio: ByteBuffer(bytes: bytes))
        }
    }
}

extension MediaStreamSocketLeg.OutboundMessage {
    /// The message as the provider's side of the socket gets it.
    public var asProviderMessage: MediaStreamProvider.Message {
        isBinary ? .binary(Array(buffer: text)) : .text(String(buffer: text))
    }
}
