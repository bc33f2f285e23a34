import Testing
@testable import Pipeline

@Suite struct FrameChunkerTests {
    @Test(arguments: [1, 7, 159, 160, 161, 333, 1000, 4096])
    func rechunksWithoutLosingOrDuplicatingSamples(blockSize: Int) {
        let input = (0..<10_007).map { Int16(truncatingIfNeeded: $0) }
        var chunker = FrameChunker(sampleRate: 8000)
        var frames: [AudioFrame] = []
        var start = 0
        while start < input.count {
            let end = min(start + blockSize, input.count)
            frames += chunker.push(input[start..<end])
            start = end
        }
        #expect(chunker.pendingSampleCount == 10_007 % 160)
        if let last = chunker.flush() { frames.append(last) }
        #expect(frames.allSatisfy { $0.samples.count == 160 && $0.sampleRate == 8000 })
        let joined = frames.flatMap(\.samples)
        #expect(Array(joined.prefix(input.count)) == input)
        #expect(joined.dropFirst(input.count).allSatisfy { $0 == 0 })
        #expect(frames.map(\.timestamp) == frames.indices.map { UInt64($0 * 160) })
    }

    @Test func frameSizesFollowTheSampleRate() {
        #expect(AudioFrame.samplesPerFrame(sampleRate: 8000) == 160)
        #expect(AudioFrame.samplesPerFrame(sampleRate: 16000) == 320)
        #expect(AudioFrame.samplesPerFrame(sampleRate: 24000) == 480)
        #expect(AudioFrame.silence(sampleRate: 16000).durationMilliseconds == 20)
    }

    @Test func flushOnAnEmptyChunkerGivesNothing() {
        var chunker = FrameChunker(sampleRate: 16000)
        #expect(chunker.push([Int16](repeating: 1, count: 320)).count == 1)
        #expect(chunker.flush() == nil)
    }
}
