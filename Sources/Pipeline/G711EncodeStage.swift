/// An outbound 8 kHz frame gets its G.711 payload (160 bytes per 20 ms frame).
public struct G711EncodeStage: PipelineStage {
    public let law: G711.Law

    public init(law: G711.Law) { self.law = law }

    public func process(_ frame: OutboundFrame, emit: (OutboundFrame) -> Void) {
        precondition(frame.audio.sampleRate == 8000, "G.711 is 8 kHz")
        var frame = frame
        frame.payload = G711.encode(frame.audio.samples, law: law)
        emit(frame)
    }
}
