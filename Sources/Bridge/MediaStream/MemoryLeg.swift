import Pipeline
import Synchronization

/// One end of a call joined in memory to its other end: what one end sends is paced out in 20 ms
/// frames (the same `PacedMediaQueue` a SIP or Twilio leg plays through) and arrives as the other
/// end's `media` events on the same tick — no codec, no socket, no jitter buffer in between. Each
/// tick, each end delivers exactly one frame (μ-law silence when it has nothing to say), as a phone
/// line does — or, on an `ImpairedLine`, with noise and echo in what the caller end hears. What
/// calls in virtual time run on (`VirtualTimeExecutor`): the pacer ticks on the call's clock, so
/// the audio moves only as the call's time does.
public final class MemoryLeg: PacedOutboundLeg {
    /// What both ends share: whether the line is up, and each end's inbox.
    private final class Line: Sendable {
        let ended = Atomic<Bool>(false)
        /// Rung when the line goes down: each end's `run` waits on it.
        let closed: [WakeAlarm]
        let inboxes: [AsyncStream<MediaStreamEvent>.Continuation]
        let chunks = Mutex([0, 0])
        let clock: CallClock
        /// What the caller end (the agent) hears passes through it; nil: a clean line.
        let impairment: ImpairedLine?

        init(inboxes: [AsyncStream<MediaStreamEvent>.Continuation], clock: CallClock, impairment: ImpairedLine?) {
            self.inboxes = inboxes
            self.clock = clock
            self.impairment = impairment
            closed = [WakeAlarm(clock: clock), WakeAlarm(clock: clock)]
        }

        func hangUp() {
            guard !ended.exchange(true, ordering: .relaxed) else { return }
            for alarm in closed { alarm.ring() }
        }

        /// A frame from the other end reaches `end`.
        func deliver(_ frame: [UInt8], to end: Int, started: ContinuousClock.Instant) {
            var frame = frame
            if let impairment {
                if end == 0 { frame = impairment.heard(frame) } else { impairment.sent(frame) }
            }
            let chunk = chunks.withLock { c -> Int in
                c[end] += 1
                return c[end]
            }
            let now = clock.now
            inboxes[end].yield(.media(MediaStreamMedia(chunk: chunk, timestamp: Int(started.duration(to: now).totalMilliseconds),
                                                       payload: frame, receivedAt: now)))
        }
    }

    public let events: AsyncStream<MediaStreamEvent>
    private let line: Line
    private let end: Int
    let outbound: PacedMediaQueue
    private let scheduler: PacerScheduler<[UInt8]>

    private init(line: Line, end: Int, events: AsyncStream<MediaStreamEvent>, scheduler: PacerScheduler<[UInt8]>, queuedFrames: Int) {
        self.line = line
        self.end = end
        self.events = events
        self.scheduler = scheduler
        outbound = PacedMediaQueue(queuedFrames: queuedFrames)
    }

    /// Two ends of one line, paced on `scheduler` (which must tick on `clock`). `caller` and
    /// `callee` are the `start` events each end's consumer sees first; `impairment` is what the
    /// caller end hears the callee through (nil: a clean line).
    public static func pair(scheduler: PacerScheduler<[UInt8]>, clock: CallClock, caller: MediaStreamStart, callee: MediaStreamStart,
                            impairment: ImpairedLine? = nil, queuedFrames: Int = 25) -> (caller: MemoryLeg, callee: MemoryLeg) {
        // Live input, as a SIP leg's: when nobody reads fast enough the oldest audio goes.
        let (first, firstInbox) = AsyncStream.makeStream(of: MediaStreamEvent.self, bufferingPolicy: .bufferingNewest(200))
        let (second, secondInbox) = AsyncStream.makeStream(of: MediaStreamEvent.self, bufferingPolicy: .bufferingNewest(200))
        let line = Line(inboxes: [firstInbox, secondInbox], clock: clock, impairment: impairment)
        // Before either end ticks: the first thing each consumer sees.
        firstInbox.yield(.start(caller))
        secondInbox.yield(.start(callee))
        return (MemoryLeg(line: line, end: 0, events: first, scheduler: scheduler, queuedFrames: queuedFrames),
                MemoryLeg(line: line, end: 1, events: second, scheduler: scheduler, queuedFrames: queuedFrames))
    }

    /// Runs this end until either end hangs up: a frame to the other end every tick, then `stop`.
    public func run() async {
        let inbox = line.inboxes[end]
        let started = line.clock.now
        let other = 1 - end
        let pacer = outbound.pacer
        let ticker = scheduler.register { [line] in
            guard !line.ended.load(ordering: .relaxed) else { return false }
            var sent = false
            pacer.tick { output in
                switch output {
                case .audio(let frame, _):
                    line.deliver(frame, to: other, started: started)
                    sent = true
                case .mark(let name): inbox.yield(.mark(name))
                }
            }
            if !sent { line.deliver(PacedMediaQueue.silenceFrame, to: other, started: started) }
            return true
        }
        if !line.ended.load(ordering: .relaxed) { await line.closed[end].wait() }
        scheduler.unregister(ticker)
        pacer.input.finish()
        inbox.yield(.stop)
        inbox.finish()
    }

    /// A key pressed on this end: the other end hears it as an RFC 4733 event would be heard.
    public func press(_ digit: Character) {
        line.inboxes[1 - end].yield(.dtmf(track: "inbound_track", digit: digit))
    }

    public func hangUp() async { line.hangUp() }
}
