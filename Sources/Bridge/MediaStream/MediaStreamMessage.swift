/// The media-stream message model: what a Twilio Media Stream carries, and what every call leg
/// speaks. A SIP call converted by the bridge and a Twilio stream look exactly alike from here on.
public enum MediaStreamEvent: Sendable, Equatable {
    /// Provider → us.
    case connected(protocol: String, version: String)
    case start(MediaStreamStart)
    case media(MediaStreamMedia)
    case dtmf(track: String, digit: Character)
    /// A mark we sent has been played out.
    case mark(String)
    case stop
}

public struct MediaStreamStart: Sendable, Equatable {
    public var streamSid: String
    public var accountSid: String
    public var callSid: String
    public var tracks: [String]
    public var customParameters: [String: String]
    public var encoding: String
    public var sampleRate: Int
    public var channels: Int

    public init(streamSid: String, accountSid: String = "", callSid: String, tracks: [String] = ["inbound"],
                customParameters: [String: String] = [:], encoding: String = "audio/x-mulaw", sampleRate: Int = 8000, channels: Int = 1) {
        self.streamSid = streamSid
        self.accountSid = accountSid
        self.callSid = callSid
        self.tracks = tracks
        self.customParameters = customParameters
        self.encoding = encoding
        self.sampleRate = sampleRate
        self.channels = channels
    }
}

public struct MediaStreamMedia: Sendable, Equatable {
    public var track: String
    /// Counts media messages from 1.
    public var chunk: Int
    /// Milliseconds since the stream started.
    public var timestamp: Int
    /// G.711 μ-law bytes.
    public var payload: [UInt8]
    /// The same audio at 16 kHz from a wideband leg (the browser's), before it was narrowed to
    /// `payload`; nil from a phone line.
    public var wideband: [Int16]?
    /// When the leg took the frame in (a SIP leg's jitter buffer released it), if it says: what
    /// reaches the call later than that — behind a busy consumer — is still placed at that time.
    public var receivedAt: ContinuousClock.Instant?

    public init(track: String = "inbound", chunk: Int, timestamp: Int, payload: [UInt8], wideband: [Int16]? = nil,
                receivedAt: ContinuousClock.Instant? = nil) {
        self.track = track
        self.chunk = chunk
        self.timestamp = timestamp
        self.payload = payload
        self.wideband = wideband
        self.receivedAt = receivedAt
    }
}

/// Us → provider.
public enum MediaStreamCommand: Sendable, Equatable {
    /// μ-law audio of any length; legs pace it out in 20 ms frames.
    case media([UInt8])
    /// Echoed back as `.mark` once everything sent before it has played.
    case mark(String)
    /// Drop audio not yet played (barge-in).
    case clear
}
