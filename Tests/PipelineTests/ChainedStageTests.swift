import Testing
@testable import Pipeline

@Suite struct ChainedStageTests {
    static func packets(_ count: Int) -> [LegFrame] {
        (0..<count).map { n in LegFrame(payload: G711.encode(ResamplerTests.sine(frequency: 300, rate: 8000, seconds: 0.02).map { $0 &+ Int16(n) }, law: .muLaw)) }
    }

    @Test func aChainGivesWhatTheStagesGiveOneAfterAnother() throws {
        let packets = Self.packets(40)
        var chain = LegDecodeStage().then(VADStage()).then(try EngineRateStage(sampleRate: 16000))
        var decode = LegDecodeStage()
        var vad = VADStage()
        let resample = try EngineRateStage(sampleRate: 16000)
        var chained: [InboundFrame] = []
        var separate: [InboundFrame] = []
        for p in packets {
            chain.process(p) { chained.append($0) }
            decode.process(p) { f in vad.process(f) { v in resample.process(v) { separate.append($0) } } }
        }
        #expect(chained.map(\.engineSamples) == separate.map(\.engineSamples))
        #expect(chained.map(\.voice) == separate.map(\.voice))
        #expect(chained.count == 40, "every stage of the caller side is one frame in, one frame out")
        // 8 kHz frames reach the engine at 16 kHz (soxr holds back at most about 30 ms meanwhile).
        let delivered = chained.reduce(0) { $0 + $1.engineSamples.count }
        #expect(delivered <= 40 * 320 && delivered >= 40 * 320 - 480, "\(delivered) samples at 16 kHz for 800 ms")
    }

    @Test func aWidebandLegsAudioReachesA16kHzEngineAsItCame() throws {
        let wide = ResamplerTests.sine(frequency: 5000, rate: 16000, seconds: 0.02)   // above the phone band
        var decode = LegDecodeStage()
        let sixteen = try EngineRateStage(sampleRate: 16000), twentyFour = try EngineRateStage(sampleRate: 24000)
        var frames: [InboundFrame] = []
        decode.process(LegFrame(payload: Self.packets(1)[0].payload, wideband: wide)) { f in sixteen.process(f) { frames.append($0) }; twentyFour.process(f) { frames.append($0) } }
        decode.process(Self.packets(1)[0]) { f in sixteen.process(f) { frames.append($0) } }
        #expect(frames[0].engineSamples == wide, "a 16 kHz engine takes the wideband audio")
        #expect(frames[1].engineSamples != wide && frames[1].audio.sampleRate == 8000, "another rate is made from the phone band")
        #expect(frames[2].wideband == nil && frames[2].engineSamples.count <= 320, "a phone line's frame: the phone band, resampled")
    }

    @Test func theResamplersTailComesOutOnEndAndIsDroppedOnInterrupt() throws {
        var stage = try ResampleStage(from: 24000, to: 8000)
        let piece = ResamplerTests.sine(frequency: 300, rate: 24000, seconds: 0.1)   // 100 ms
        var frames: [AudioFrame] = []
        stage.process(piece) { frames.append($0) }
        stage.handle(.end) { frames.append($0) }
        #expect(frames.allSatisfy { $0.sampleRate == 8000 && $0.samples.count == 160 })
        #expect(frames.count == 5 || frames.count == 6, "100 ms in, its 20 ms frames out on end (+1 padded): \(frames.count)")

        var interrupted = try ResampleStage(from: 24000, to: 8000)
        var kept: [AudioFrame] = []
        interrupted.process(Array(piece.prefix(300))) { kept.append($0) }
        interrupted.handle(.interrupt) { kept.append($0) }
        interrupted.handle(.end) { kept.append($0) }
        #expect(kept.isEmpty, "nothing held before an interrupt leaks out after it")
    }

    @Test func metersCountEveryStageAndQueue() throws {
        let meters = PipelineMeters()
        var chain = meters.stage("decode", side: "caller", LegDecodeStage())
            .then(meters.stage("vad", side: "caller", VADStage()))
        let queue = BoundedQueue<Int>(capacity: 4, policy: .dropOldest)
        meters.queue("queue", side: "caller") { queue.meterCounters }
        for p in Self.packets(100) { chain.process(p) { _ in } }
        for n in 0..<6 { queue.trySend(n) }
        let byName = Dictionary(uniqueKeysWithValues: meters.snapshots.map { ($0.stage, $0) })
        #expect(byName["decode"]?.framesIn == 100 && byName["decode"]?.framesOut == 100)
        #expect(byName["vad"]?.framesIn == 100 && byName["vad"]?.framesOut == 100)
        let timed = 100 / StageMeter.timingInterval + (100 % StageMeter.timingInterval == 0 ? 0 : 1)
        #expect(byName["vad"]?.timedFrames == timed)
        #expect((byName["vad"]?.processingNanoseconds ?? 0) > 0)
        #expect(byName["queue"]?.framesIn == 6 && byName["queue"]?.drops == 2 && byName["queue"]?.queueHighWater == 4,
                "a full drop-oldest queue shows its drops and high water: \(String(describing: byName["queue"]))")
        #expect(meters.snapshots.map(\.stage) == ["decode", "vad", "queue"], "in declaration order")
    }

    @Test func bargeInOffNeverFires() {
        let playback = PlaybackTracker()
        playback.queued(item: "a", milliseconds: 2000)
        var on = BargeInStage(playback: playback)
        var off = BargeInStage(playback: playback, controller: nil)
        var frame = InboundFrame(payload: [], audio: .silence(sampleRate: 8000))
        frame.voice = .init(isSpeech: true, frameIsSpeechLike: true, event: nil, speechMilliseconds: 300)
        #expect(on.outputs(for: frame).first?.bargeIn.isEmpty == false)
        #expect(off.outputs(for: frame).first?.bargeIn.isEmpty == true)
    }
}
