import Foundation
import NIOCore
import Synchronization

/// `slots` Twilio media streams kept open at once, each ending after `callSeconds` (with `stop`,
/// as Twilio ends a call) and replaced by a new one, until `finish()`. Every open stream sends its
/// 20 ms `media` through MediaStreamBenchmark's `PhasedSender`, all on the load's one event loop.
final class ChurningStreams: Sendable {
    struct Totals: Sendable {
        var streams = 0
        var failedConnects = 0
        /// Why the first few failed connects failed, as the client saw it.
        var connectErrors: [String] = []
        var sent = 0
        var received = 0
        /// Frames a stream sent that never came back, beyond what the pipeline holds back.
        var lost = 0
        /// Streams that lost any, and the most that did not come back from one stream (held back or lost).
        var streamsLosing = 0
        var worstLoss = 0
    }

    private let port: Int
    private let slots: Int
    private let callSeconds: Double
    private let loop: any EventLoop
    private let sender: MediaStreamBenchmark.PhasedSender
    private let running = Atomic<Bool>(true)
    private let totals = Mutex(Totals())
    /// How long a stream, silent, waits with no echo coming back before it sends `stop`. A busy
    /// machine fills the stage queues (CI's soak: high-water 64) and the echoes come back paced
    /// behind them; CI counted 3 frames "lost" after a fixed 400 ms, and beside busy loops a
    /// stall left 43 queued when a fixed 3 s ran out. A frame still missing once none has come
    /// back for this long is lost, not late.
    static let drainIdleLimit = TimeAmount.seconds(3)
    /// The loopback engine's path resamples 8 → 16 → 8 kHz: its last 60 ms stay in the two
    /// resamplers until more audio pushes them out, and a silent caller sends none. (Twilio
    /// sends media continuously, so on a real call that is the 60 ms before hang-up.)
    static let pipelineHoldbackFrames = 3

    init(port: Int, slots: Int, callSeconds: Double, loop: any EventLoop) {
        self.port = port
        self.slots = slots
        self.callSeconds = callSeconds
        self.loop = loop
        sender = MediaStreamBenchmark.PhasedSender(loop: loop, frames: LoadDialect.twilio.payloads(MediaStreamBenchmark.toneFrames()))
    }

    var snapshot: Totals { totals.withLock { $0 } }

    /// Runs every slot until `finish()`; each slot's first stream starts at a random point of the
    /// call length, so the streams end (and new ones start) spread over time, not all at once.
    func run() async {
        sender.start()
        await withTaskGroup(of: Void.self) { group in
            for slot in 0..<slots {
                group.addTask { await self.runSlot(slot) }
            }
        }
        sender.stop()
    }

    func finish() { running.store(false, ordering: .relaxed) }

    private func runSlot(_ slot: Int) async {
        var generation = 0
        var length = Double.random(in: 1...callSeconds)   // the first stream: part of a call, to spread the ends
        while running.load(ordering: .relaxed) {
            let index = generation * slots + slot
            generation += 1
            let client: MediaStreamLoadClient
            do {
                client = try await MediaStreamLoadClient.connect(index: index, port: port, dialect: .twilio, group: loop)
            } catch {
                totals.withLock {
                    $0.failedConnects += 1
                    if $0.connectErrors.count < 5 { $0.connectErrors.append("\(error)") }
                }
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            sender.add(client)
            let end = ContinuousClock.now.advanced(by: .milliseconds(Int(length * 1000)))
            while running.load(ordering: .relaxed), ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(200)) }
            // The caller falls silent, its last frames come back, then the call ends.
            sender.remove(client)
            _ = await client.echoes(allBut: Self.pipelineHoldbackFrames, idleLimit: Self.drainIdleLimit)
            try? await loop.submit { client.sendStop() }.get()
            try? await Task.sleep(for: .milliseconds(100))
            try? await client.channel.close()
            let sent = client.log.sent.load(ordering: .relaxed), received = client.log.received.load(ordering: .relaxed)
            totals.withLock {
                $0.streams += 1
                $0.sent += sent
                $0.received += received
                let lost = max(0, sent - received - Self.pipelineHoldbackFrames)
                $0.lost += lost
                if lost > 0 { $0.streamsLosing += 1 }
                $0.worstLoss = max($0.worstLoss, sent - received)
            }
            length = callSeconds
        }
    }
}
