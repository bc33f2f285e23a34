/// A frame with the voice-activity decision made on it.
public struct VoiceFrame: Sendable, Equatable {
    public var frame: AudioFrame
    public var decision: VoiceActivityDetector.Decision
}

/// Runs the voice-activity detector on each frame and passes the frame on with its decision.
public struct VADStage: PipelineStage {
    private var detector: VoiceActivityDetector

    public init(configuration: VoiceActivityDetector.Configuration = .init()) {
        detector = VoiceActivityDetector(configuration: configuration)
    }

    public mutating func process(_ frame: AudioFrame) -> [VoiceFrame] {
        [VoiceFrame(frame: frame, decision: detector.process(frame))]
    }
}
