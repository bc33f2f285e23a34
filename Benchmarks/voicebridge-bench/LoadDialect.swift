import Foundation

/// What a provider's side of a media stream says, for the load generator — written from the
/// providers' documented messages, apart from the server's codecs (the load must not share code
/// with what it measures).
enum LoadDialect: String, CaseIterable {
    case twilio, telnyx, plivo, exotel

    var path: String { "/\(rawValue)/stream" }

    func opening(sid: String, index: Int) -> [String] {
        switch self {
        case .twilio:
            [#"{"event":"connected","protocol":"Call","version":"1.0.0"}"#,
             #"{"event":"start","sequenceNumber":"1","start":{"accountSid":"ACbench","streamSid":"\#(sid)","callSid":"CAbench\#(index)","tracks":["inbound"],"customParameters":{"from":"+15550000000","to":"+15550000001"},"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1}},"streamSid":"\#(sid)"}"#]
        case .telnyx:
            [#"{"event":"connected","version":"1.0.0"}"#,
             #"{"event":"start","sequence_number":"1","start":{"call_control_id":"v3:bench\#(index)","media_format":{"encoding":"PCMU","sample_rate":8000,"channels":1}},"stream_id":"\#(sid)"}"#]
        case .plivo:
            [#"{"event":"start","sequenceNumber":1,"start":{"callId":"bench\#(index)","streamId":"\#(sid)","accountId":"MAbench","tracks":["inbound"],"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000}},"extra_headers":"from=+15550000000;to=+15550000001"}"#]
        case .exotel:
            [#"{"event":"connected"}"#,
             #"{"event":"start","sequence_number":"1","stream_sid":"\#(sid)","start":{"stream_sid":"\#(sid)","call_sid":"bench\#(index)","from":"+15550000000","to":"+15550000001","media_format":{"encoding":"audio/x-raw","sample_rate":"8000","bit_rate":"16"}}}"#]
        }
    }

    /// One 20 ms message; `payload` is base64 of what the dialect carries (μ-law, or 16-bit PCM for Exotel).
    func media(sid: String, tick: Int, payload: String) -> String {
        switch self {
        case .twilio: #"{"event":"media","sequenceNumber":"\#(tick + 2)","media":{"track":"inbound","chunk":"\#(tick + 1)","timestamp":"\#(tick * 20)","payload":"\#(payload)"},"streamSid":"\#(sid)"}"#
        case .telnyx: #"{"event":"media","sequence_number":"\#(tick + 2)","media":{"track":"inbound","chunk":"\#(tick + 1)","timestamp":"\#(tick * 20)","payload":"\#(payload)"},"stream_id":"\#(sid)"}"#
        case .plivo: #"{"event":"media","sequenceNumber":\#(tick + 2),"streamId":"\#(sid)","media":{"track":"inbound","timestamp":"\#(tick * 20)","chunk":\#(tick + 1),"payload":"\#(payload)"}}"#
        case .exotel: #"{"event":"media","sequence_number":"\#(tick + 2)","stream_sid":"\#(sid)","media":{"chunk":"\#(tick + 1)","timestamp":"\#(tick * 20)","payload":"\#(payload)"}}"#
        }
    }

    func stop(sid: String) -> String {
        switch self {
        case .twilio: #"{"event":"stop","streamSid":"\#(sid)"}"#
        case .telnyx: #"{"event":"stop","stream_id":"\#(sid)"}"#
        case .plivo: #"{"event":"stop","streamId":"\#(sid)"}"#
        case .exotel: #"{"event":"stop","stream_sid":"\#(sid)"}"#
        }
    }

    /// How the server's audio and marks begin in this dialect.
    var mediaPrefix: [UInt8] { Array((self == .plivo ? #"{"event":"playAudio""# : #"{"event":"media""#).utf8) }
    var markPrefix: [UInt8] { Array((self == .plivo ? #"{"event":"checkpoint""# : #"{"event":"mark""#).utf8) }

    /// The provider's word that the audio before mark `name` has played.
    func played(sid: String, name: String) -> String {
        switch self {
        case .twilio: #"{"event":"mark","streamSid":"\#(sid)","mark":{"name":"\#(name)"}}"#
        case .telnyx: #"{"event":"mark","stream_id":"\#(sid)","mark":{"name":"\#(name)"}}"#
        case .plivo: #"{"event":"playedStream","streamId":"\#(sid)","name":"\#(name)"}"#
        case .exotel: #"{"event":"mark","stream_sid":"\#(sid)","mark":{"name":"\#(name)"}}"#
        }
    }

    /// The tone cycle's frames as this dialect carries them.
    func payloads(_ muLawFrames: [[UInt8]]) -> [String] {
        muLawFrames.map { frame in
            guard self == .exotel else { return Data(frame).base64EncodedString() }
            return Data(frame.flatMap { byte -> [UInt8] in
                let sample = Self.linear(byte)
                return [UInt8(truncatingIfNeeded: sample), UInt8(truncatingIfNeeded: sample >> 8)]
            }).base64EncodedString()
        }
    }

    /// G.711 μ-law to linear (kept here, apart from the server's).
    static func linear(_ byte: UInt8) -> Int16 {
        let u = ~byte
        let exponent = Int((u >> 4) & 0x07)
        let magnitude = ((Int(u & 0x0F) << 3) + 0x84) << exponent
        return Int16(u & 0x80 != 0 ? 0x84 - magnitude : magnitude - 0x84)
    }
}
