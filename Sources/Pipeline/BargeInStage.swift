/// Decides, from the frame's voice decision and what the agent is playing, whether the caller
/// is talking over the agent (see `BargeInController`); the actions ride on the frame.
public struct BargeInStage: PipelineStage {
    private var controller: BargeInController?
    private let playback: PlaybackTracker

    /// `controller` nil (a loopback call plays the caller back while they talk): never fires.
    public init(playback: PlaybackTracker, controller: BargeInController? = BargeInController()) {
        self.playback = playback
        self.controller = controller
    }

    public mutating func process(_ frame: InboundFrame, emit: (InboundFrame) -> Void) {
        guard controller != nil else { return emit(frame) }
        var frame = frame
        frame.bargeIn = controller?.process(frame.voice, playback: playback.snapshot) ?? []
        emit(frame)
    }
}
