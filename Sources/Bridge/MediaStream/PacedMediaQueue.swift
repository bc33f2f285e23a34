import Pipeline
import Synchronization

/// A leg's outbound side: μ-law of any length becomes 20 ms frames in a suspend-producer queue
/// (at most `queuedFrames` waiting), a mark closes a response chunk (its partial frame padded with
/// μ-law silence), and clear drops everything queued — including what a blocked `send` still
/// holds. Both the SIP leg and the Twilio leg play out through this; only their sinks differ.
final class PacedMediaQueue: Sendable {
    /// 20 ms of μ-law silence: what a continuous stream carries where a side has nothing to say.
    static let silenceFrame = [UInt8](repeating: 0xFF, count: 160)

    let pacer: Pacer<[UInt8]>
    private let state = Mutex(State())

    private struct State {
        var pending: [UInt8] = []
        var item = 0
        /// Bumped by `clear`: a `send` still pushing older audio stops.
        var generation = 0
    }

    /// The legs queue 25 frames (500 ms) by default. The queue is server-side — what goes out is
    /// still paced at real time — so its depth costs neither barge-in (`clear` drops it) nor the
    /// played-time bookkeeping, only 4 KB per playing call; a deep queue is refilled rarely.
    init(queuedFrames: Int) {
        // The producer (agent audio) is woken when 2/5 of the queue is left (200 ms by default) and
        // refills it in one go: about three task switches a second of audio instead of one per
        // frame or two, with time to spare before the pacer would starve.
        pacer = Pacer(input: BoundedQueue(capacity: queuedFrames, policy: .suspendProducer, resumeProducersAt: queuedFrames * 2 / 5))
    }

    /// Holds what is queued where it is (`Pacer.hold`), or plays on from there.
    func hold(_ held: Bool) {
        if held { pacer.hold() } else { pacer.release() }
    }

    /// Room left for frames and marks before a `send` would wait.
    var room: Int { pacer.input.capacity - pacer.input.count }

    /// Queues whole 20 ms frames and marks without waiting, all or none: false (nothing queued)
    /// when a partial frame is pending or they do not all fit. One producer at a time.
    func trySend(_ commands: [MediaStreamCommand]) -> Bool {
        guard room >= commands.count, state.withLock({ $0.pending.isEmpty }),
              commands.allSatisfy({ if case .media(let bytes) = $0 { bytes.count == 160 } else { true } }) else { return false }
        for command in commands {
            switch command {
            case .media(let frame):
                let item = state.withLock { "item-\($0.item)" }
                pacer.playback.queued(item: item, milliseconds: 20)
                pacer.input.trySend(.audio(frame, item: item))
            case .mark(let name):
                state.withLock { $0.item += 1 }
                pacer.input.trySend(.mark(name))
            case .clear:
                clear()
            }
        }
        return true
    }

    /// Drops everything queued, and what a blocked `send` still holds.
    private func clear() {
        state.withLock { s in s.pending.removeAll(); s.item += 1; s.generation += 1 }
        pacer.input.sendControl(.flush)
    }

    func send(_ command: MediaStreamCommand) async {
        switch command {
        case .media(let bytes):
            let (frames, item, generation) = state.withLock { s -> ([[UInt8]], String, Int) in
                s.pending += bytes
                var frames: [[UInt8]] = []
                while s.pending.count >= 160 {
                    frames.append(Array(s.pending.prefix(160)))
                    s.pending.removeFirst(160)
                }
                return (frames, "item-\(s.item)", s.generation)
            }
            for frame in frames {
                guard state.withLock({ $0.generation }) == generation else { return }   // cleared meanwhile
                pacer.playback.queued(item: item, milliseconds: 20)
                guard await pacer.input.send(.audio(frame, item: item)) else { return }
            }
        case .mark(let name):
            let (tail, item) = state.withLock { s -> ([UInt8]?, String) in
                let item = "item-\(s.item)"
                defer { s.pending.removeAll(); s.item += 1 }
                guard !s.pending.isEmpty else { return (nil, item) }
                return (s.pending + [UInt8](repeating: 0xFF, count: 160 - s.pending.count), item)
            }
            if let tail {
                pacer.playback.queued(item: item, milliseconds: 20)
                await pacer.input.send(.audio(tail, item: item))
            }
            await pacer.input.send(.mark(name))
        case .clear:
            clear()
        }
    }
}

/// A leg whose agent audio plays out through a `PacedMediaQueue`: the queue's figures and its
/// controls, the same for every such leg.
protocol PacedOutboundLeg: MediaStreamLeg {
    var outbound: PacedMediaQueue { get }
}

extension PacedOutboundLeg {
    public var playback: PlaybackTracker { outbound.pacer.playback }
    public var outboundQueueCounters: BoundedQueueCounters? { outbound.pacer.input.meterCounters }
    public var outboundRoom: Int { outbound.room }
    public func trySend(_ commands: [MediaStreamCommand]) -> Bool { outbound.trySend(commands) }

    /// Media is paced out (the call suspends here when the queue is full); a mark follows the
    /// audio before it; clear drops what has not played.
    public func send(_ command: MediaStreamCommand) async {
        await outbound.send(command)
    }

    @discardableResult
    public func holdPlayback(_ held: Bool) -> Bool {
        outbound.hold(held)
        return true
    }

    @discardableResult
    public func observePlayout(_ observer: (@Sendable ([UInt8]?) -> Void)?) -> Bool {
        outbound.pacer.observeTicks(observer)
        return true
    }
}
