/// G.711 payload (a 20 ms frame as the leg delivers it) → an inbound frame with 8 kHz PCM,
/// its media timestamp counted in samples.
public struct G711DecodeStage: PipelineStage {
    public let law: G711.Law
    private var timestamp: UInt64 = 0

    public init(law: G711.Law) { self.law = law }

    public mutating func process(_ payload: [UInt8], emit: (InboundFrame) -> Void) {
        defer { timestamp += UInt64(payload.count) }
        emit(InboundFrame(payload: payload, audio: AudioFrame(samples: G711.decode(payload, law: law), sampleRate: 8000, timestamp: timestamp)))
    }
}
