import Foundation
import NIOCore
import Pipeline

/// The media-stream WebSocket dialects the server speaks, each on its own path
/// (`/twilio/stream`, `/telnyx/stream`, …). Every one becomes the same `MediaStreamEvent`s and
/// takes the same `MediaStreamCommand`s, so every call session is the same whatever the provider;
/// only the words on the wire differ (PROTOCOLS.md §1–2).
///
/// | dialect | audio | mark / its echo | clear |
/// |---|---|---|---|
/// | Twilio | base64 μ-law 8 kHz | `mark` / `mark` | `clear` |
/// | Telnyx | base64 PCMU 8 kHz (RTP payloads) | `mark` / `mark` | `clear` |
/// | Plivo | base64 μ-law 8 kHz (`playAudio` out) | `checkpoint` / `playedStream` | `clearAudio` |
/// | Exotel | base64 16-bit PCM 8 kHz, ~100 ms chunks | `mark` / `mark` | `clear` |
/// | Vonage (`VonageDialect`) | binary 16-bit PCM, 8 or 16 kHz, both ways | none: played time counted here | `{"action":"clear"}` |
/// | browser (ours, `BrowserDialect`) | base64 16-bit PCM, 16 kHz in, 8 kHz out | `mark` / `mark` | `clear` |
public enum MediaStreamDialect: String, Sendable, CaseIterable {
    case twilio, telnyx, plivo, exotel, vonage
    /// The dashboard's "Try it": opened with an API token, never by a provider.
    case browser

    /// The providers' dialects: what `media_streams` configures and a stream token opens.
    public static let providers: [MediaStreamDialect] = [.twilio, .telnyx, .plivo, .exotel, .vonage]

    /// The server's WebSocket path for the dialect.
    public var path: String { "\(rawValue)/stream" }

    /// The provider's name as people write it.
    public var displayName: String {
        switch self {
        case .twilio: "Twilio Media Streams"
        case .telnyx: "Telnyx media streaming"
        case .plivo: "Plivo audio streams"
        case .exotel: "Exotel Voicebot"
        case .vonage: "Vonage Voice API WebSocket"
        case .browser: "VoiceBridge browser stream"
        }
    }

    // MARK: In (provider → us)

    /// One text message as an event. Audio comes as μ-law whatever the dialect carries, of any
    /// length (the leg cuts it into 20 ms frames); Vonage's comes in binary messages instead
    /// (`MediaStreamSocketLeg.receive(audio:)`).
    public func decodeEvent(_ text: String) throws(TwilioMediaStreamCodec.Failure) -> TwilioMediaStreamCodec.Decoded<MediaStreamEvent> {
        switch self {
        case .twilio: try TwilioMediaStreamCodec.decodeEvent(text)
        case .telnyx: try OtherDialects.decodeTelnyx(text)
        case .plivo: try OtherDialects.decodePlivo(text)
        case .exotel: try OtherDialects.decodeExotel(text)
        case .vonage: try VonageDialect.decode(text)
        case .browser: try BrowserDialect.decode(text)
        }
    }

    // MARK: Out (us → provider)

    /// The part of every outbound audio message before its base64 payload; a leg builds it once
    /// per stream. Every dialect's audio message ends `"}}` after the payload.
    public func mediaPrefix(streamSid: String) -> String {
        let sid = TwilioMediaStreamCodec.quote(streamSid)
        return switch self {
        case .twilio: TwilioMediaStreamCodec.mediaPrefix(streamSid: streamSid)
        case .telnyx: #"{"event":"media","media":{"payload":""#
        case .plivo: #"{"event":"playAudio","media":{"contentType":"audio/x-mulaw","sampleRate":8000,"payload":""#
        case .exotel: #"{"event":"media","stream_sid":\#(sid),"streamSid":\#(sid),"media":{"payload":""#
        case .browser: BrowserDialect.mediaPrefix
        case .vonage: ""   // binary audio: no text around it
        }
    }

    /// One 20 ms μ-law frame as the dialect's audio message (a text dialect's: Vonage's is binary).
    public func encodeMedia(_ frame: [UInt8], prefix: some Collection<UInt8>) -> ByteBuffer {
        switch self {
        case .exotel, .browser:
            // 16-bit little-endian PCM: 320 bytes a frame, the multiple of 320 Exotel asks for.
            return TwilioMediaStreamCodec.encodeMedia(PCM16.bytes(G711.decode(frame, law: .muLaw)), prefix: prefix)
        default:
            return TwilioMediaStreamCodec.encodeMedia(frame, prefix: prefix)
        }
    }

    /// Whether the dialect's audio travels in binary messages (Vonage's) rather than in text.
    public var carriesBinaryAudio: Bool { self == .vonage }

    /// Whether the caller's audio is linear PCM at the rate the start names (the browser's and
    /// Vonage's), which the leg narrows to the call's 8 kHz μ-law, keeping a 16 kHz wideband.
    var sendsLinearAudioAtItsOwnRate: Bool { self == .browser || self == .vonage }

    /// A mark or a clear as the dialect writes it (audio goes through `encodeMedia`); nil for a
    /// mark or audio in Vonage's dialect (binary audio; played time counted by the leg).
    public func encodeCommand(_ command: MediaStreamCommand, streamSid: String) -> String? {
        let sid = TwilioMediaStreamCodec.quote(streamSid)
        switch (self, command) {
        case (.vonage, .media), (.vonage, .mark):
            return nil   // binary audio (`VonageDialect.audio`); marks counted by the leg
        case (_, .media(let payload)):
            return String(buffer: encodeMedia(payload, prefix: mediaPrefix(streamSid: streamSid).utf8))
        case (.twilio, _):
            return TwilioMediaStreamCodec.encodeCommand(command, streamSid: streamSid)
        case (.telnyx, .mark(let name)):
            return #"{"event":"mark","stream_id":\#(sid),"mark":{"name":\#(TwilioMediaStreamCodec.quote(name))}}"#
        case (.telnyx, .clear):
            return #"{"event":"clear","stream_id":\#(sid)}"#
        case (.plivo, .mark(let name)):
            return #"{"event":"checkpoint","streamId":\#(sid),"name":\#(TwilioMediaStreamCodec.quote(name))}"#
        case (.plivo, .clear):
            return #"{"event":"clearAudio","streamId":\#(sid)}"#
        case (.exotel, .mark(let name)):
            return #"{"event":"mark","stream_sid":\#(sid),"streamSid":\#(sid),"mark":{"name":\#(TwilioMediaStreamCodec.quote(name))}}"#
        case (.exotel, .clear):
            return #"{"event":"clear","stream_sid":\#(sid),"streamSid":\#(sid)}"#
        case (.browser, .mark(let name)):
            return #"{"event":"mark","mark":{"name":\#(TwilioMediaStreamCodec.quote(name))}}"#
        case (.browser, .clear):
            return #"{"event":"clear"}"#
        case (.vonage, .clear):
            return VonageDialect.clear
        }
    }

    /// Pausing and resuming what the far end already buffered, for a dialect that has words for it
    /// (the browser's): a hold then silences the agent at once instead of after the buffered audio.
    public func encodePlayback(held: Bool) -> String? {
        guard self == .browser else { return nil }
        return held ? #"{"event":"pause"}"# : #"{"event":"resume"}"#
    }
}
