import Synchronization
import Testing
@testable import Pipeline

@Suite struct BoundedQueueTests {
    /// A producer 100× faster than its consumer is held to the consumer's pace; the queue never
    /// holds more than its capacity.
    @Test func aSlowConsumerSuspendsAFastProducerAndMemoryStaysBounded() async {
        let queue = BoundedQueue<Int>(capacity: 8, policy: .suspendProducer)
        let produced = Atomic<Int>(0)
        let producer = Task {
            for n in 0..<200 {
                guard await queue.send(n) else { return }
                produced.add(1, ordering: .relaxed)
            }
            queue.finish()
        }
        var received: [Int] = []
        var maxAhead = 0
        while let message = await queue.next() {
            guard case .data(let n) = message else { continue }
            received.append(n)
            maxAhead = max(maxAhead, produced.load(ordering: .relaxed) - received.count)
            try? await Task.sleep(for: .microseconds(200))   // the slow consumer
        }
        await producer.value
        #expect(received == Array(0..<200), "nothing lost, order kept")
        #expect(queue.counters.highWater <= 8)
        #expect(maxAhead <= 9, "the producer never got more than capacity (+1 in hand) ahead: \(maxAhead)")
        #expect(queue.counters.dropped == 0)
    }

    /// With a low watermark a waiting producer is not woken for every free slot: it sleeps until
    /// the queue has drained to the mark, then refills it in one go.
    @Test func aLowWatermarkWakesTheProducerOncePerRefill() async throws {
        let queue = BoundedQueue<Int>(capacity: 5, policy: .suspendProducer, resumeProducersAt: 2)
        let produced = Atomic<Int>(0)
        let producer = Task {
            for n in 0..<20 {
                guard await queue.send(n) else { return }
                produced.add(1, ordering: .relaxed)
            }
        }
        func settle() async throws { try await Task.sleep(for: .milliseconds(50)) }
        try await settle()
        #expect(queue.count == 5 && produced.load(ordering: .relaxed) == 5, "filled to capacity, then waits")
        for _ in 0..<2 { _ = queue.poll() }
        try await settle()
        #expect(queue.count == 3, "above the watermark the producer stays asleep")
        _ = queue.poll()
        try await settle()
        #expect(queue.count == 5, "at the watermark it wakes and refills")
        #expect(produced.load(ordering: .relaxed) == 8)
        var received: [Int] = []
        while received.count < 17 {
            if case .data(let n)? = queue.poll() { received.append(n) } else { try await Task.sleep(for: .milliseconds(1)) }
        }
        #expect(received == Array(3..<20), "nothing lost, order kept")
        await producer.value
        #expect(queue.counters.highWater == 5)
    }

    @Test func dropOldestNeverBlocksTheProducerAndCountsDrops() async {
        let queue = BoundedQueue<Int>(capacity: 10, policy: .dropOldest)
        // Nobody consumes: a send that waited for room would never return. No stopwatch, so a busy
        // machine cannot fail it.
        for n in 0..<10_000 { await queue.send(n) }
        #expect(queue.counters.dropped == 9_990)
        #expect(queue.counters.highWater == 10)
        var kept: [Int] = []
        while case .data(let n)? = queue.poll() { kept.append(n) }
        #expect(kept == Array(9_990..<10_000), "the newest audio is what remains")
    }

    @Test func controlOvertakesOneSecondOfQueuedAudio() async {
        let queue = BoundedQueue<Int>(capacity: 100, policy: .suspendProducer)
        for n in 0..<50 { await queue.send(n) }   // 50 frames = 1 s
        queue.sendControl(.interrupt)
        guard case .control(.interrupt)? = queue.poll() else {
            Issue.record("the interrupt did not come first"); return
        }
        #expect(queue.poll() == nil, "the queued audio was dropped")
        #expect(queue.counters.flushed == 50)
        queue.sendControl(.end)
        await queue.send(7)
        guard case .control(.end)? = await queue.next() else { Issue.record("end did not overtake"); return }
        guard case .data(7)? = await queue.next() else { Issue.record("data after a non-flushing control stays"); return }
    }

    @Test func urgentElementsOvertakeQueuedData() async {
        let queue = BoundedQueue<String>(capacity: 4, policy: .suspendProducer)
        for n in 0..<4 { await queue.send("audio\(n)") }
        queue.sendUrgent("speech-started")
        guard case .data("speech-started")? = await queue.next() else { Issue.record("urgent did not come first"); return }
        guard case .data("audio0")? = await queue.next() else { Issue.record("data order broken"); return }
        #expect(queue.count == 3, "urgent elements do not take data slots")
    }

    @Test func aFlushReleasesASuspendedProducerAndDropsWhatItHeld() async {
        let queue = BoundedQueue<Int>(capacity: 2, policy: .suspendProducer)
        await queue.send(1); await queue.send(2)
        let blocked = Task { await queue.send(3) }
        try? await Task.sleep(for: .milliseconds(20))
        queue.sendControl(.flush)
        #expect(await blocked.value == false, "the held element was flushed, not queued")
        var data: [Int] = []
        while let m = queue.poll() { if case .data(let n) = m { data.append(n) } }
        #expect(data.isEmpty)
        #expect(queue.counters.flushed == 3)
        #expect(await queue.send(4), "the queue takes new audio after the flush")
    }

    @Test func cancellingEndsWaitsOnBothSides() async {
        let empty = BoundedQueue<Int>(capacity: 1, policy: .suspendProducer)
        let consumer = Task { await empty.next() }
        let full = BoundedQueue<Int>(capacity: 1, policy: .suspendProducer)
        await full.send(0)
        let producer = Task { await full.send(1) }
        try? await Task.sleep(for: .milliseconds(20))
        consumer.cancel(); producer.cancel()
        #expect(await consumer.value == nil)
        #expect(await producer.value == false)
        #expect(full.count == 1, "the cancelled send queued nothing")
    }

    @Test func finishDrainsThenEnds() async {
        let queue = BoundedQueue<Int>(capacity: 4, policy: .dropOldest)
        await queue.send(1); await queue.send(2)
        queue.finish()
        #expect(await queue.send(3) == false)
        #expect(!queue.isDrained)
        guard case .data(1)? = await queue.next(), case .data(2)? = await queue.next() else { Issue.record("lost data"); return }
        #expect(await queue.next() == nil)
        #expect(queue.isDrained)
    }
}

extension StageMessage: Equatable where Payload: Equatable {
    public static func == (a: StageMessage, b: StageMessage) -> Bool {
        switch (a, b) {
        case (.data(let x), .data(let y)): x == y
        case (.control(let x), .control(let y)): x == y
        default: false
        }
    }
}
