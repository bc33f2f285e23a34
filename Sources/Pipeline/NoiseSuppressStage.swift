/// Takes the caller's noise out of each frame before voice activity is decided and the engine
/// hears it (`NoiseSuppressor`, DeepFilterNet3). The recording, before it, keeps the line as it
/// came. A wideband frame (the dashboard's microphone, whose browser suppresses its own noise)
/// passes as it is.
public struct NoiseSuppressStage: PipelineStage {
    private let suppressor: NoiseSuppressor

    public init(suppressor: NoiseSuppressor) {
        self.suppressor = suppressor
    }

    public mutating func process(_ frame: InboundFrame, emit: (InboundFrame) -> Void) {
        guard frame.wideband == nil else { return emit(frame) }
        var frame = frame
        frame.audio.samples = suppressor.suppress(frame.audio.samples)
        frame.payload = G711.encode(frame.audio.samples, law: .muLaw)
        emit(frame)
    }
}
