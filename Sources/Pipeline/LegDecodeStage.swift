/// A 20 ms frame as a call leg delivers it: G.711 μ-law, the phone band every stage works in, and
/// for a wideband leg (the dashboard's microphone) the same 20 ms at 16 kHz as it came.
public struct LegFrame: Sendable {
    public var payload: [UInt8]
    /// 320 samples at 16 kHz, or nil (a phone line has nothing above its band).
    public var wideband: [Int16]?
    /// When the leg took it in (`MediaStreamMedia.receivedAt`).
    public var receivedAt: ContinuousClock.Instant?

    public init(payload: [UInt8], wideband: [Int16]? = nil, receivedAt: ContinuousClock.Instant? = nil) {
        self.payload = payload
        self.wideband = wideband
        self.receivedAt = receivedAt
    }
}

/// The caller side's first stage: the leg's μ-law as 8 kHz PCM, its media timestamp counted in
/// samples, and the wideband copy carried along for the engine (`EngineRateStage` takes it instead
/// of the phone band where it can).
public struct LegDecodeStage: PipelineStage {
    private var timestamp: UInt64 = 0

    public init() {}

    public mutating func process(_ frame: LegFrame, emit: (InboundFrame) -> Void) {
        defer { timestamp += UInt64(frame.payload.count) }
        var decoded = InboundFrame(payload: frame.payload, audio: AudioFrame(samples: G711.decode(frame.payload, law: .muLaw), sampleRate: 8000, timestamp: timestamp))
        decoded.wideband = frame.wideband
        decoded.receivedAt = frame.receivedAt
        emit(decoded)
    }
}
