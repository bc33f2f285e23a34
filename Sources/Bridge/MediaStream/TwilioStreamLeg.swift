import Logging
import Pipeline
import Synchronization

/// A Twilio Media Stream (bidirectional `<Connect><Stream>`) as a call leg.
///
/// The socket's reader feeds text frames to `receive(_:)`; `run()` writes what the leg sends.
/// Outbound audio is paced here, 20 ms per message on the shared media tick, at most
/// `aheadFrames` × 20 ms ahead; a mark is sent after the audio before it, and Twilio echoes it
/// when played — that echo is the played-time truth. `clear` drops what is queued here and tells
/// Twilio to drop what it buffered.
public final class TwilioStreamLeg: MediaStreamLeg {
    public enum Received: Sendable, Equatable { case accepted, unknown(String), malformed(String), stopped }

    public let events: AsyncStream<MediaStreamEvent>
    private let continuation: AsyncStream<MediaStreamEvent>.Continuation
    private let outbound: PacedMediaQueue
    private var pacer: Pacer<[UInt8]> { outbound.pacer }
    private let outbox = BoundedQueue<String>(capacity: 64, policy: .suspendProducer)
    private let scheduler: PacerScheduler<[UInt8]>
    private let write: @Sendable (String) async throws -> Void
    private let close: @Sendable () async -> Void
    private let state = Mutex(State())
    let logger: Logger

    struct State {
        var streamSid = ""
        var start: MediaStreamStart?
        var unknown = 0
        var malformed = 0
        var finished = false
    }

    public init(scheduler: PacerScheduler<[UInt8]>, aheadFrames: Int = 5, logger: Logger,
                write: @escaping @Sendable (String) async throws -> Void, close: @escaping @Sendable () async -> Void) {
        self.scheduler = scheduler
        self.outbound = PacedMediaQueue(aheadFrames: aheadFrames)
        self.write = write
        self.close = close
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream(of: MediaStreamEvent.self, bufferingPolicy: .bufferingNewest(200))
    }

    public var streamSid: String { state.withLock { $0.streamSid } }
    /// The `start` message, once it came.
    public var start: MediaStreamStart? { state.withLock { $0.start } }
    public var counters: (unknown: Int, malformed: Int) { state.withLock { ($0.unknown, $0.malformed) } }

    /// One text frame from Twilio. A malformed one is logged and skipped; the stream carries on.
    @discardableResult
    public func receive(_ text: String) -> Received {
        do {
            switch try TwilioMediaStreamCodec.decodeEvent(text) {
            case .message(let event, let sid):
                if case .start(let start) = event { state.withLock { $0.streamSid = start.streamSid; $0.start = start } }
                if let sid, !sid.isEmpty, state.withLock({ $0.streamSid.isEmpty }) {
                    // media before start: the protocol puts start first; refuse to guess a stream.
                    state.withLock { $0.malformed += 1 }
                    return .malformed("\(event) before start (stream \(sid))")
                }
                continuation.yield(event)
                if event == .stop { finish(); return .stopped }
                return .accepted
            case .unknownEvent(let name):
                state.withLock { $0.unknown += 1 }
                return .unknown(name)
            }
        } catch {
            state.withLock { $0.malformed += 1 }
            logger.warning("malformed media-stream message", metadata: ["stream": "\(streamSid)", "error": "\(error)"])
            return .malformed("\(error)")
        }
    }

    /// The socket closed (or Twilio sent stop): the stream is over.
    public func finish() {
        let first = state.withLock { s -> Bool in defer { s.finished = true }; return !s.finished }
        guard first else { return }
        continuation.finish()
        pacer.input.finish()
        outbox.finish()
    }

    public func send(_ command: MediaStreamCommand) async {
        await outbound.send(command)
        if command == .clear {
            // Also drop what is waiting for the socket, and tell Twilio to drop what it buffered.
            outbox.sendControl(.flush)
            outbox.sendUrgent(TwilioMediaStreamCodec.encodeCommand(.clear, streamSid: streamSid))
        }
    }

    public func hangUp() async {
        finish()
        await close()
    }

    /// Paces outbound audio onto the socket until the stream ends.
    public func run() async {
        // The part of each media message before its payload, built once per stream id.
        let prefix = Mutex((sid: "", text: ""))
        let ticker = scheduler.register { [self] in
            let (finished, sid) = state.withLock { ($0.finished, $0.streamSid) }
            guard !finished else { return false }
            let mediaPrefix = prefix.withLock { p in
                if p.sid != sid || p.text.isEmpty { p = (sid, TwilioMediaStreamCodec.mediaPrefix(streamSid: sid)) }
                return p.text
            }
            pacer.tick { output in
                switch output {
                case .audio(let frame, _): outbox.trySend(TwilioMediaStreamCodec.encodeMedia(frame, prefix: mediaPrefix))
                case .mark(let name): outbox.trySend(TwilioMediaStreamCodec.encodeCommand(.mark(name), streamSid: sid))
                }
            }
            return true
        }
        defer { scheduler.unregister(ticker) }
        while let message = await outbox.next() {
            guard case .data(let text) = message else { continue }
            do { try await write(text) } catch { finish(); break }
        }
    }
}
