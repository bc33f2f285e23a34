/// 8 kHz PCM frame → G.711 payload bytes (160 per 20 ms frame).
public struct G711EncodeStage: PipelineStage {
    public let law: G711.Law

    public init(law: G711.Law) { self.law = law }

    public func process(_ frame: AudioFrame) -> [[UInt8]] {
        precondition(frame.sampleRate == 8000, "G.711 is 8 kHz")
        return [G711.encode(frame.samples, law: law)]
    }
}
