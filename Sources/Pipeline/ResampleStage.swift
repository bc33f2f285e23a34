/// Converts frames to another sample rate and re-frames the result into whole 20 ms frames.
///
/// On interrupt or flush it drops what its filter and framer hold: half a word of stale agent
/// audio must not leak out after a barge-in.
public struct ResampleStage: PipelineStage {
    private let resampler: Resampler
    private var chunker: FrameChunker

    public init(from inputRate: Int, to outputRate: Int, quality: Resampler.Quality = .voice) throws {
        resampler = try Resampler(from: inputRate, to: outputRate, quality: quality)
        chunker = FrameChunker(sampleRate: outputRate)
    }

    public mutating func process(_ frame: AudioFrame) -> [AudioFrame] {
        chunker.push(resampler.process(frame.samples))
    }

    public mutating func handle(_ control: ControlEvent) -> [AudioFrame] {
        switch control {
        case .interrupt, .flush:
            _ = resampler.flush()
            chunker = FrameChunker(sampleRate: chunker.sampleRate)
            return []
        case .end:
            var frames = chunker.push(resampler.flush())
            if let last = chunker.flush() { frames.append(last) }
            return frames
        }
    }
}
