/// Runs the voice-activity detector on each caller frame (at 8 kHz, as the phone delivers it).
public struct VADStage: PipelineStage {
    private var detector: VoiceActivityDetector

    /// `neural`: decide with Silero instead of the energy detector (`vad: neural`).
    public init(configuration: VoiceActivityDetector.Configuration = .init(), neural: SileroModel? = nil) {
        detector = VoiceActivityDetector(configuration: configuration, neural: neural)
    }

    public mutating func process(_ frame: InboundFrame, emit: (InboundFrame) -> Void) {
        var frame = frame
        frame.voice = detector.process(frame.audio)
        emit(frame)
    }
}
