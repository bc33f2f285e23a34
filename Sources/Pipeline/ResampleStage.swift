/// Agent audio of any block size at `inputRate` → whole 20 ms frames at `outputRate` (resampled
/// with libsoxr, or only re-framed when the rates are equal).
///
/// `interrupt`/`flush` drop what its filter and framer hold: half a word of stale agent audio
/// must not leak out after a barge-in. `end` (the utterance is complete) emits the tail, padded
/// to a whole frame, and starts a new stream.
public struct ResampleStage: PipelineStage {
    private let resampler: Resampler?
    private var chunker: FrameChunker

    public init(from inputRate: Int, to outputRate: Int, quality: Resampler.Quality = .voice) throws {
        resampler = inputRate == outputRate ? nil : try Resampler(from: inputRate, to: outputRate, quality: quality)
        chunker = FrameChunker(sampleRate: outputRate)
    }

    public mutating func process(_ samples: [Int16], emit: (AudioFrame) -> Void) {
        for frame in chunker.push(resampler?.process(samples) ?? samples) { emit(frame) }
    }

    public mutating func handle(_ control: ControlEvent, emit: (AudioFrame) -> Void) {
        switch control {
        case .interrupt, .flush:
            _ = resampler?.flush()
            chunker = FrameChunker(sampleRate: chunker.sampleRate)
        case .end:
            for frame in chunker.push(resampler?.flush() ?? []) { emit(frame) }
            if let last = chunker.flush() { emit(last) }
        }
    }
}

/// The caller frame at the engine's rate: resampled from 8 kHz, passed as it is when the engine
/// runs at 8 kHz, or left empty when the engine takes the μ-law payload untouched.
public struct EngineRateStage: PipelineStage {
    private let resampler: Resampler?
    private let wantsSamples: Bool
    /// The engine's rate is a wideband leg's (16 kHz).
    private let takesWideband: Bool

    /// `sampleRate` nil: the engine takes μ-law, no PCM is made for it.
    public init(sampleRate: Int?) throws {
        wantsSamples = sampleRate != nil
        takesWideband = sampleRate == 16_000
        resampler = try sampleRate.flatMap { $0 == 8000 ? nil : try Resampler(from: 8000, to: $0) }
    }

    public func process(_ frame: InboundFrame, emit: (InboundFrame) -> Void) {
        guard wantsSamples else { return emit(frame) }
        var frame = frame
        if let wideband = frame.wideband, takesWideband {
            // What the leg had above the phone band reaches the engine (a 16 kHz recognizer).
            frame.engineSamples = wideband
        } else {
            frame.engineSamples = resampler?.process(frame.audio.samples) ?? frame.audio.samples
        }
        emit(frame)
    }
}

/// Engine audio as it comes: 16-bit PCM, or G.711 μ-law (a realtime model speaking `audio/pcmu`).
public enum EncodedAudio: Sendable {
    case pcm([Int16])
    case muLaw([UInt8])
}

/// Engine audio → 16-bit PCM at the engine's rate.
public struct PCMDecodeStage: PipelineStage {
    public init() {}

    public func process(_ audio: EncodedAudio, emit: ([Int16]) -> Void) {
        switch audio {
        case .pcm(let samples): emit(samples)
        case .muLaw(let bytes): emit(G711.decode(bytes, law: .muLaw))
        }
    }
}
