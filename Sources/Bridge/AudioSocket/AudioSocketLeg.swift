import Foundation
import Logging
import NIOCore
import Pipeline
import Synchronization

/// An Asterisk AudioSocket connection seen as a media stream: the call's UUID becomes `start`,
/// its audio (signed linear, 8 kHz) 20 ms μ-law `media` events, its keys `dtmf`, its hang-up or
/// the socket's end `stop`; `media`/`mark`/`clear` commands become audio messages paced at real
/// time on the shared media tick — AudioSocket has no marks, so a mark is echoed as its audio
/// before it goes out, as a SIP leg does. `run()` belongs to the task that owns the call.
///
/// A peer that sends nothing for `silentTicksAllowed` ticks (`sip.media_timeout_seconds`) is a
/// dead line: the call ends with `endedByMediaTimeout`. Asterisk sends the channel's audio all
/// along, silence included.
public final class AudioSocketLeg: Sendable {
    public let events: AsyncStream<MediaStreamEvent>
    private let continuation: AsyncStream<MediaStreamEvent>.Continuation
    let outbound: PacedMediaQueue
    private var pacer: Pacer<[UInt8]> { outbound.pacer }
    private let channel: any Channel
    private let scheduler: PacerScheduler<[UInt8]>
    private let silentTicksAllowed: Int
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var start: MediaStreamStart?
        var startWaiters: [CheckedContinuation<MediaStreamStart?, Never>] = []
        /// Samples of the peer's audio not yet a whole 20 ms frame.
        var pending: [Int16] = []
        var chunk = 0
        var silentTicks = 0
        var finished = false
        var mediaTimedOut = false
        /// Woken when the connection is over (the peer's hang-up or error, the socket's end, ours).
        var endWaiter: CheckedContinuation<Void, Never>?
        /// Whether the audio was dropped once because the peer stopped reading (logged once).
        var droppedAudio = false
    }

    /// `mediaTimeout`: how long the peer may send nothing at all before the line counts as dead.
    public init(channel: any Channel, scheduler: PacerScheduler<[UInt8]>, mediaTimeout: Duration, logger: Logger, queuedFrames: Int = 25) {
        self.channel = channel
        self.scheduler = scheduler
        self.silentTicksAllowed = max(1, Int(mediaTimeout / .milliseconds(20)))
        self.logger = logger
        outbound = PacedMediaQueue(queuedFrames: queuedFrames)
        // Live input: when nobody reads fast enough the oldest audio goes, never the socket reader.
        (events, continuation) = AsyncStream.makeStream(of: MediaStreamEvent.self, bufferingPolicy: .bufferingNewest(200))
    }

    /// The call's `start`, once the peer sent its UUID; nil if the connection ended first.
    public func waitForStart() async -> MediaStreamStart? {
        await withCheckedContinuation { waiter in
            let now = state.withLock { s -> MediaStreamStart?? in
                if let start = s.start { return .some(start) }
                if s.finished { return .some(nil) }
                s.startWaiters.append(waiter)
                return nil
            }
            if let now { waiter.resume(returning: now) }
        }
    }

    public var start: MediaStreamStart? { state.withLock { $0.start } }

    /// One message from the peer, on the connection's event loop.
    func receive(_ message: AudioSocketMessage) {
        let (frames, started): ([[UInt8]], MediaStreamStart?) = state.withLock { s in
            s.silentTicks = 0
            switch message {
            case .uuid(let uuid) where s.start == nil:
                let id = uuid.uuidString.lowercased()
                s.start = MediaStreamStart(streamSid: "AS" + id.replacingOccurrences(of: "-", with: ""), callSid: id,
                                           customParameters: ["uuid": id, "direction": "inbound"])
                return ([], s.start)
            case .audio(let samples) where s.start != nil:
                s.pending += samples
                var frames: [[UInt8]] = []
                while s.pending.count >= 160 {
                    frames.append(G711.encode(Array(s.pending.prefix(160)), law: .muLaw))
                    s.pending.removeFirst(160)
                }
                return (frames, nil)
            default:
                return ([], nil)
            }
        }
        switch message {
        case .uuid:
            guard let started else { return logger.info("AudioSocket: a second UUID ignored") }
            continuation.yield(.start(started))
            for waiter in state.withLock({ s in defer { s.startWaiters = [] }; return s.startWaiters }) { waiter.resume(returning: started) }
        case .audio:
            guard start != nil else { return end(because: "audio before the call's UUID") }
            let now = ContinuousClock.now
            for frame in frames {
                let chunk = state.withLock { s in s.chunk += 1; return s.chunk }
                continuation.yield(.media(MediaStreamMedia(chunk: chunk, timestamp: chunk * 20, payload: frame, receivedAt: now)))
            }
        case .dtmf(let key):
            guard start != nil else { return end(because: "a key before the call's UUID") }
            continuation.yield(.dtmf(track: "inbound_track", digit: key))
        case .hangUp:
            channel.close(promise: nil)   // the peer need not close it too
            finish()
        case .error(let code):
            end(because: "the peer sent an error" + (code.map { " (code \($0))" } ?? ""))
        }
    }

    /// The connection failed or broke the protocol: said in the log, and the call ends.
    func end(because reason: String) {
        logger.warning("AudioSocket connection ended", metadata: ["reason": "\(reason)", "remote": "\(channel.remoteAddress.map { "\($0)" } ?? "?")"])
        channel.close(promise: nil)
        finish()
    }

    /// The connection is over: `stop` follows once `run()` has let go of the tick.
    func finish() {
        let (waiters, ended) = state.withLock { s -> ([CheckedContinuation<MediaStreamStart?, Never>], CheckedContinuation<Void, Never>?) in
            guard !s.finished else { return ([], nil) }
            s.finished = true
            defer { s.startWaiters = []; s.endWaiter = nil }
            return (s.startWaiters, s.endWaiter)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
        ended?.resume()
    }

    public var isFinished: Bool { state.withLock { $0.finished } }
    public var streamSid: String { start?.streamSid ?? "" }

    /// Plays out on the shared tick until the connection is over, then ends the events with `stop`.
    public func run() async {
        let ticker = scheduler.register { [self] in
            pacer.tick { output in
                switch output {
                case .audio(let frame, _): write(.audio(G711.decode(frame, law: .muLaw)))
                case .mark(let name): continuation.yield(.mark(name))
                }
            }
            let (finished, timedOut) = state.withLock { s -> (Bool, Bool) in
                s.silentTicks += 1
                if !s.finished, s.silentTicks > silentTicksAllowed { s.mediaTimedOut = true; return (false, true) }
                return (s.finished, false)
            }
            if timedOut { hangUpNow() }
            return !finished
        }
        await withCheckedContinuation { waiter in
            let over = state.withLock { s -> Bool in
                if s.finished { return true }
                s.endWaiter = waiter
                return false
            }
            if over { waiter.resume() }
        }
        scheduler.unregister(ticker)
        pacer.input.finish()
        continuation.yield(.stop)
        continuation.finish()
    }

    /// Ends the call from our side: the hang-up message, then the socket closed (the peer need
    /// not answer: one that never hangs up is not waited for).
    public func hangUp() async { hangUpNow() }

    private func hangUpNow() {
        guard !isFinished else { return }
        var buffer = channel.allocator.buffer(capacity: 3)
        AudioSocketMessage.hangUp.write(to: &buffer)
        let channel = channel
        channel.writeAndFlush(buffer).whenComplete { _ in channel.close(promise: nil) }
        finish()
    }

    public var endedByMediaTimeout: Bool { state.withLock { $0.mediaTimedOut } }

    /// One message to the peer. Audio is dropped while the socket is not writable — a peer that
    /// stopped reading must not grow the server's memory — and the first drop is logged.
    private func write(_ message: AudioSocketMessage) {
        let channel = channel
        guard channel.isActive else { return }
        guard channel.isWritable else {
            if !state.withLock({ s in defer { s.droppedAudio = true }; return s.droppedAudio }) {
                logger.warning("AudioSocket peer not reading: dropping outbound audio", metadata: ["stream": "\(streamSid)"])
            }
            return
        }
        var buffer = channel.allocator.buffer(capacity: 3 + 320)
        message.write(to: &buffer)
        channel.writeAndFlush(buffer, promise: nil)
    }
}

extension AudioSocketLeg: PacedOutboundLeg {}
