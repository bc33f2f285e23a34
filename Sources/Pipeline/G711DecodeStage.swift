/// G.711 payload bytes → 16-bit PCM frame at 8 kHz, keeping the media timestamp.
public struct G711DecodeStage: PipelineStage {
    public let law: G711.Law
    private var timestamp: UInt64 = 0

    public init(law: G711.Law) { self.law = law }

    public mutating func process(_ payload: [UInt8]) -> [AudioFrame] {
        defer { timestamp += UInt64(payload.count) }
        return [AudioFrame(samples: G711.decode(payload, law: law), sampleRate: 8000, timestamp: timestamp)]
    }
}
