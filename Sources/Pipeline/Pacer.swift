import Synchronization

/// What the pacer's input queue carries: 20 ms of encoded audio for a response item, or a mark.
public enum PacedEntry<Payload: Sendable>: Sendable {
    case audio(Payload, item: String)
    case mark(String)
}

/// What the pacer hands to the leg on a tick.
public enum PacerOutput<Payload: Sendable>: Sendable {
    case audio(Payload, item: String)
    /// Playback has passed this mark: every frame queued before it has been sent.
    case mark(String)
}

/// Sends one 20 ms frame per tick on an absolute schedule — tick n at start + n × 20 ms — so
/// time spent working or waking late never accumulates into drift.
///
/// Its input is a `suspendProducer` queue, so a producer faster than real time waits for the
/// pacer. Control events in that queue overtake audio: an interrupt has already dropped the
/// queued frames by the time the pacer sees it. Nothing queued: nothing is sent on that tick.
public final class Pacer<Payload: Sendable>: Sendable {
    public struct Statistics: Sendable, Equatable {
        public var ticks = 0
        public var framesSent = 0
        /// Ticks that ran more than half a frame (10 ms) after their deadline (filled in by `run`).
        public var lateTicks = 0
        public var maxLatenessNanoseconds = 0
        /// The schedule was re-anchored after a stall instead of bursting to catch up.
        public var reanchors = 0
    }

    public static var interval: Duration { .milliseconds(20) }

    public let input: BoundedQueue<PacedEntry<Payload>>
    public let playback: PlaybackTracker
    private let stats = Mutex(Statistics())
    private let ended = Atomic<Bool>(false)
    /// Ticks left on a hold (0: not held): what is queued waits, unplayed, for `release()`.
    private let heldTicks = Atomic<Int>(0)
    /// The longest hold: an engine that never says what the caller's speech was cannot silence
    /// the agent for good (3 s).
    public static var maximumHoldTicks: Int { 150 }
    /// Told what each tick sent (nil: nothing): the far end an echo canceller holds the line's
    /// audio against (`observeTicks`). Checked by a flag first: most calls have none.
    private let tickObserver = Mutex<(@Sendable (Payload?) -> Void)?>(nil)
    private let observed = Atomic<Bool>(false)

    public init(input: BoundedQueue<PacedEntry<Payload>>, playback: PlaybackTracker = PlaybackTracker()) {
        self.input = input
        self.playback = playback
    }

    public var statistics: Statistics { stats.withLock { $0 } }

    /// One tick: passes marks the previous frame completed, then sends at most one frame.
    /// (Pre-specialised for μ-law frames, as `BoundedQueue` is: it runs 50 times a second per call.)
    @_specialize(exported: true, where Payload == [UInt8])
    public func tick(_ sink: (PacerOutput<Payload>) -> Void) {
        if heldTicks.load(ordering: .relaxed) > 0, heldTicks.subtract(1, ordering: .relaxed).newValue >= 0 {
            stats.withLock { $0.ticks += 1 }
            observe(nil)
            return
        }
        var sent = false
        defer { if !sent { observe(nil) } }
        while !sent, let message = input.poll() {
            switch message {
            case .data(.mark(let name)):
                sink(.mark(name))
            case .data(.audio(let payload, let item)):
                sink(.audio(payload, item: item))
                playback.played(item: item, milliseconds: 20)
                observe(payload)
                sent = true
            case .control(.interrupt), .control(.flush):
                playback.flushed()
            case .control(.end):
                ended.store(true, ordering: .relaxed)
                return
            }
        }
        stats.withLock { s in
            s.ticks += 1
            if sent { s.framesSent += 1 }
        }
    }

    /// Ticks on `clock` until cancelled, an `end` control event arrives, or the input is finished
    /// and drained. For many calls at once, `PacerScheduler` ticks them all from one timer.
    public func run<C: Clock & Sendable>(clock: C, maxLag: Duration = .milliseconds(100), sink: @escaping (PacerOutput<Payload>) -> Void) async
    where C.Duration == Duration {
        var schedule = TickSchedule(clock: clock, maxLag: maxLag)
        while !isDone, await schedule.waitForNextTick() {
            tick(sink)
        }
        stats.withLock { s in
            s.lateTicks += schedule.statistics.lateTicks
            s.maxLatenessNanoseconds = max(s.maxLatenessNanoseconds, schedule.statistics.maxLatenessNanoseconds)
            s.reanchors += schedule.statistics.reanchors
        }
    }

    /// `observer` hears what every tick sends from now on (nil when nothing); nil: no one does.
    public func observeTicks(_ observer: (@Sendable (Payload?) -> Void)?) {
        tickObserver.withLock { $0 = observer }
        observed.store(observer != nil, ordering: .relaxed)
    }

    private func observe(_ payload: Payload?) {
        guard observed.load(ordering: .relaxed), let observer = tickObserver.withLock({ $0 }) else { return }
        observer(payload)
    }

    /// Stops playing without dropping anything (the caller spoke over the agent and what they
    /// said is not known yet): the queue waits, the producer with it, until `release()` or
    /// `maximumHoldTicks`.
    public func hold() { heldTicks.store(Self.maximumHoldTicks, ordering: .relaxed) }

    /// Plays on from the frame where `hold()` stopped.
    public func release() { heldTicks.store(0, ordering: .relaxed) }

    public var isHeld: Bool { heldTicks.load(ordering: .relaxed) > 0 }

    /// Ended by an `end` event, or its input finished and drained.
    public var isDone: Bool { ended.load(ordering: .relaxed) || input.isDrained }
}
