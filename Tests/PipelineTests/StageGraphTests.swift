import Synchronization
import Testing
import TestSupport
@testable import Pipeline

@Suite struct StageGraphTests {
    /// μ-law packets → decode → 8k→16k → VAD, the inbound half of a call. The test feeds it faster
    /// than real time, so its edges hold the producer back instead of dropping (a live network
    /// edge would drop; BoundedQueueTests covers that policy).
    static func inboundGraph() throws -> (StageGraph, BoundedQueue<[UInt8]>, BoundedQueue<VoiceFrame>) {
        let graph = StageGraph()
        let packets = graph.edge([UInt8].self, capacity: 10, policy: .suspendProducer)
        let pcm8k = graph.edge(AudioFrame.self, capacity: 10, policy: .suspendProducer)
        let pcm16k = graph.edge(AudioFrame.self, capacity: 10, policy: .suspendProducer)
        let voiced = graph.edge(VoiceFrame.self, capacity: 100, policy: .suspendProducer)
        graph.connect("decode", G711DecodeStage(law: .muLaw), from: packets, to: pcm8k)
        graph.connect("resample", try ResampleStage(from: 8000, to: 16000), from: pcm8k, to: pcm16k)
        graph.connect("vad", VADStage(), from: pcm16k, to: voiced)
        return (graph, packets, voiced)
    }

    @Test func framesFlowThroughEveryStageAndAreCounted() async throws {
        let (graph, packets, voiced) = try Self.inboundGraph()
        let fixture = try WAVFile.read(Fixtures.audio("en_yes_attend.ulaw.wav")).data
        let frames = fixture.count / 160
        let owner = Task { await graph.run() }
        var received: [VoiceFrame] = []
        let consumer = Task {
            var all: [VoiceFrame] = []
            while let m = await voiced.next() { if case .data(let f) = m { all.append(f) } }
            return all
        }
        for n in 0..<frames {
            await packets.send(Array(fixture[n * 160..<(n + 1) * 160]))
            await Task.yield()
        }
        packets.finish()   // drain, then end (an `end` control event would overtake the queued audio)
        await owner.value
        received = await consumer.value
        #expect(received.allSatisfy { $0.frame.sampleRate == 16000 && $0.frame.samples.count == 320 })
        // The resampler flushes its tail on end, so every input sample comes out (±1 frame).
        #expect(abs(received.count - frames) <= 1, "\(received.count) frames out of \(frames)")
        #expect(received.contains { $0.decision.event == .speechStarted }, "the fixture is speech")
        let counters = Dictionary(uniqueKeysWithValues: graph.counters.map { ($0.name, $0) })
        #expect(counters["decode"]?.framesIn == frames && counters["decode"]?.framesOut == frames)
        #expect(counters["vad"]?.framesIn == counters["resample"]?.framesOut)
        #expect(counters["resample"]!.processingNanoseconds > 0)
        #expect(counters.values.allSatisfy { $0.drops == 0 })
        #expect(graph.runningTasks == 0)
    }

    @Test func cancellingTheOwnerLeavesNothingRunning() async throws {
        let (graph, packets, _) = try Self.inboundGraph()
        let owner = Task { await graph.run() }
        for _ in 0..<5 { await packets.send([UInt8](repeating: 0xFF, count: 160)) }
        try await Task.sleep(for: .milliseconds(20))
        #expect(graph.runningTasks == 3)
        owner.cancel()
        await owner.value
        #expect(graph.runningTasks == 0, "every stage task ended with its owner")
    }

    @Test func anInterruptOvertakesQueuedAudioThroughAStage() async throws {
        // A slow sink behind a suspendProducer edge: audio backs up; the interrupt still gets through first.
        let graph = StageGraph()
        let source = graph.edge(AudioFrame.self, capacity: 50, policy: .suspendProducer)
        let out = graph.edge(AudioFrame.self, capacity: 5, policy: .suspendProducer)
        graph.connect("resample", try ResampleStage(from: 24000, to: 8000), from: source, to: out)
        let owner = Task { await graph.run() }
        for n in 0..<50 { await source.send(AudioFrame(samples: [Int16](repeating: Int16(n), count: 480), sampleRate: 24000)) }
        source.sendControl(.interrupt)
        var sawInterruptAfter = -1
        var dataBefore = 0
        for _ in 0..<60 {
            guard let m = await out.next() else { break }
            if case .control(.interrupt) = m { sawInterruptAfter = dataBefore; break }
            dataBefore += 1
        }
        #expect(sawInterruptAfter >= 0 && sawInterruptAfter <= 6, "interrupt arrived after \(sawInterruptAfter) frames, not after 50")
        #expect(source.counters.flushed + out.counters.flushed > 30)
        owner.cancel()
        await owner.value
    }
}

@Suite struct BargeInControllerTests {
    typealias Decision = VoiceActivityDetector.Decision

    static func speech(_ ms: Int) -> Decision { Decision(isSpeech: true, frameIsSpeechLike: true, event: nil, speechMilliseconds: ms) }
    static let quiet = Decision(isSpeech: false, frameIsSpeechLike: false, event: nil, speechMilliseconds: 0)
    static func playing(item: String? = "resp-1", played: Int, generated: Int, pending: Int) -> PlaybackTracker.Snapshot {
        .init(currentItem: item, currentItemPlayedMilliseconds: played, currentItemGeneratedMilliseconds: generated, pendingMilliseconds: pending)
    }

    @Test func firesOnceAfterTheMinimumSpeechWhilePlaying() {
        var controller = BargeInController()
        let playback = Self.playing(played: 740, generated: 2000, pending: 1260)
        #expect(controller.process(Self.speech(180), playback: playback).isEmpty)
        #expect(controller.process(Self.speech(200), playback: playback) == [.flushOutbound, .clearLeg, .interruptEngine(item: "resp-1", playedMilliseconds: 740)])
        #expect(controller.process(Self.speech(220), playback: playback).isEmpty, "once per speech segment")
        #expect(controller.process(Self.quiet, playback: playback).isEmpty)
        #expect(controller.process(Self.speech(200), playback: playback).count == 3, "a new segment can interrupt again")
    }

    @Test func doesNothingWhenTheAgentIsSilent() {
        var controller = BargeInController()
        #expect(controller.process(Self.speech(500), playback: Self.playing(played: 2000, generated: 2000, pending: 0)).isEmpty)
    }

    @Test func clampsToWhatWasGeneratedAndSkipsTheEngineWhenNothingPlayed() {
        var controller = BargeInController(minimumSpeechMilliseconds: 100)
        #expect(controller.process(Self.speech(100), playback: Self.playing(played: 900, generated: 800, pending: 20))
                == [.flushOutbound, .clearLeg, .interruptEngine(item: "resp-1", playedMilliseconds: 800)])
        var fresh = BargeInController(minimumSpeechMilliseconds: 100)
        #expect(fresh.process(Self.speech(100), playback: Self.playing(played: 0, generated: 600, pending: 600))
                == [.flushOutbound, .clearLeg], "nothing of the item was heard: the engine is not told")
    }

    @Test func worksWithTheRealTrackerAndPacer() async {
        let pacer = Pacer<Int>(input: BoundedQueue(capacity: 100, policy: .suspendProducer))
        for n in 0..<50 { await pacer.input.send(.audio(n, item: "r1")); pacer.playback.queued(item: "r1", milliseconds: 20) }
        for _ in 0..<12 { pacer.tick { _ in } }   // 240 ms played
        var controller = BargeInController()
        let actions = controller.process(Self.speech(200), playback: pacer.playback.snapshot)
        #expect(actions.last == .interruptEngine(item: "r1", playedMilliseconds: 240))
    }
}
