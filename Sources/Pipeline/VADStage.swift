/// Runs the voice-activity detector on each caller frame (at 8 kHz, as the phone delivers it).
public struct VADStage: PipelineStage {
    private var detector: VoiceActivityDetector

    public init(configuration: VoiceActivityDetector.Configuration = .init()) {
        detector = VoiceActivityDetector(configuration: configuration)
    }

    public mutating func process(_ frame: InboundFrame, emit: (InboundFrame) -> Void) {
        var frame = frame
        frame.voice = detector.process(frame.audio)
        emit(frame)
    }
}
