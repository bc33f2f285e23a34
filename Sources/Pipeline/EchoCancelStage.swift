/// Takes the agent's echo out of each caller frame before voice activity is decided
/// (`EchoCanceller`, the far end from the leg's `EchoReference`): what a speakerphone or a line's
/// hybrid returns of the agent is then not taken for the caller speaking. The recording, before
/// it, keeps the line as it came. A wideband frame (the dashboard's microphone, whose browser
/// cancels its own echo) passes as it is.
public struct EchoCancelStage: PipelineStage {
    private let canceller: EchoCanceller
    private let reference: EchoReference

    public init(canceller: EchoCanceller = EchoCanceller(), reference: EchoReference) {
        self.canceller = canceller
        self.reference = reference
    }

    public mutating func process(_ frame: InboundFrame, emit: (InboundFrame) -> Void) {
        let played = reference.next()
        guard frame.wideband == nil, frame.audio.samples.count == EchoCanceller.frameSamples else { return emit(frame) }
        var frame = frame
        frame.audio.samples = canceller.cancel(heard: frame.audio.samples, played: played)
        frame.payload = G711.encode(frame.audio.samples, law: .muLaw)
        emit(frame)
    }
}
