/// One 20 ms frame of caller audio on its way to the engine. Each stage of the caller side fills
/// in its part, so the end of the chain holds everything decided about the frame.
public struct InboundFrame: Sendable {
    /// As the leg delivered it: G.711 μ-law, 160 bytes.
    public var payload: [UInt8]
    /// Decoded, 8 kHz.
    public var audio: AudioFrame
    /// The same 20 ms at 16 kHz, from a wideband leg (the dashboard's microphone); nil from a phone.
    public var wideband: [Int16]?
    /// The voice-activity detector's view (speech or not, onset or offset).
    public var voice = VoiceActivityDetector.Decision(isSpeech: false, frameIsSpeechLike: false, event: nil, speechMilliseconds: 0)
    /// In-band tones that ended or were confirmed on this frame (DTMF digits, beeps).
    public var tones: [ToneEvent] = []
    /// What barge-in asks for on this frame (usually nothing).
    public var bargeIn: [BargeInController.Action] = []
    /// The audio at the engine's rate (empty when the engine takes μ-law as it came).
    public var engineSamples: [Int16] = []
    /// When the leg took it in, if the leg says (a SIP leg does).
    public var receivedAt: ContinuousClock.Instant?

    public init(payload: [UInt8], audio: AudioFrame) {
        self.payload = payload
        self.audio = audio
    }
}

/// One 20 ms frame of agent audio on its way to the leg.
public struct OutboundFrame: Sendable {
    /// The engine's response item it belongs to (for played-time accounting and marks).
    public var item: String
    /// 8 kHz.
    public var audio: AudioFrame
    /// Encoded for the leg: G.711 μ-law, 160 bytes.
    public var payload: [UInt8] = []

    public init(item: String, audio: AudioFrame) {
        self.item = item
        self.audio = audio
    }
}
