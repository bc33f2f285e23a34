/// Re-chunks audio of any block size into whole 20 ms frames.
///
/// Network and synthesis sources deliver audio in arbitrary sizes (a 4 KB TTS chunk, a 30 ms RTP
/// packet); every stage after this works in 20 ms frames. Samples that do not fill a frame wait for
/// the next push, so nothing is lost or duplicated; `flush()` pads the remainder at end of stream.
public struct FrameChunker: Sendable {
    public let sampleRate: Int
    public let samplesPerFrame: Int
    private var pending: [Int16] = []
    private var nextTimestamp: UInt64

    public init(sampleRate: Int, startTimestamp: UInt64 = 0) {
        precondition(sampleRate > 0 && sampleRate % 50 == 0, "sample rate must be a multiple of 50 Hz")
        self.sampleRate = sampleRate
        self.samplesPerFrame = AudioFrame.samplesPerFrame(sampleRate: sampleRate)
        self.nextTimestamp = startTimestamp
        pending.reserveCapacity(samplesPerFrame * 2)
    }

    /// Samples held back because they do not yet fill a frame.
    public var pendingSampleCount: Int { pending.count }

    /// Appends samples and returns every complete frame they make.
    public mutating func push<S: Collection>(_ samples: S) -> [AudioFrame] where S.Element == Int16 {
        var frames: [AudioFrame] = []
        var index = samples.startIndex
        // Complete a partial frame left over from the previous push first.
        if !pending.isEmpty {
            let need = samplesPerFrame - pending.count
            let end = samples.index(index, offsetBy: need, limitedBy: samples.endIndex) ?? samples.endIndex
            pending.append(contentsOf: samples[index..<end])
            index = end
            if pending.count == samplesPerFrame {
                frames.append(makeFrame(pending))
                pending.removeAll(keepingCapacity: true)
            }
        }
        while let end = samples.index(index, offsetBy: samplesPerFrame, limitedBy: samples.endIndex) {
            frames.append(makeFrame(Array(samples[index..<end])))
            index = end
        }
        pending.append(contentsOf: samples[index...])
        return frames
    }

    /// Ends the stream: returns the remainder padded with silence to a whole frame, if any.
    public mutating func flush() -> AudioFrame? {
        guard !pending.isEmpty else { return nil }
        pending.append(contentsOf: repeatElement(0, count: samplesPerFrame - pending.count))
        defer { pending.removeAll(keepingCapacity: true) }
        return makeFrame(pending)
    }

    private mutating func makeFrame(_ samples: [Int16]) -> AudioFrame {
        defer { nextTimestamp += UInt64(samplesPerFrame) }
        return AudioFrame(samples: samples, sampleRate: sampleRate, timestamp: nextTimestamp)
    }
}
