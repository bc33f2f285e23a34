/// The last stage before the pacer: tags each encoded frame with its response item and tells the
/// playback tracker that 20 ms more of that item was generated.
public struct PacerFeedStage<Payload: Sendable>: PipelineStage {
    public var item: String
    public let playback: PlaybackTracker

    public init(item: String, playback: PlaybackTracker) {
        self.item = item
        self.playback = playback
    }

    public func process(_ payload: Payload) -> [PacedEntry<Payload>] {
        playback.queued(item: item, milliseconds: AudioFrame.durationMilliseconds)
        return [.audio(payload, item: item)]
    }
}
