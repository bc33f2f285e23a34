import NIOCore
import Logging
import Pipeline
import Synchronization

/// A media stream on a WebSocket — Twilio's bidirectional `<Connect><Stream>`, or another
/// provider's (`MediaStreamDialect`) — as a call leg.
///
/// The socket's reader feeds text frames to `receive(_:)`; audio in any dialect arrives as μ-law
/// and is cut into 20 ms `media` events here. Outbound audio is paced here, 20 ms per
/// message, written every third tick of the shared media tick so that Twilio holds 40–100 ms (see
/// `run()`; `queuedFrames` more wait here); a mark is sent after the audio before it, and Twilio
/// echoes it when played — that echo is the played-time truth. `clear` drops what is queued here
/// and tells Twilio to drop what it buffered. What a tick produces goes
/// to the `Socket` synchronously, from the tick: no queue and no task switch per frame.
public final class MediaStreamSocketLeg: MediaStreamLeg {
    public enum Received: Sendable, Equatable { case accepted, unknown(String), malformed(String), stopped }

    /// Where the leg's messages go. `send` is called from the media tick and must not block: it
    /// writes (or hands to the socket's event loop) and returns. A `media` message may be dropped
    /// when the socket cannot take more (a peer that stopped reading); marks and clears may not.
    public struct Socket: Sendable {
        public var send: @Sendable (_ messages: [OutboundMessage]) -> Void
        public var close: @Sendable () async -> Void

        public init(send: @escaping @Sendable (_ messages: [OutboundMessage]) -> Void, close: @escaping @Sendable () async -> Void) {
            self.send = send
            self.close = close
        }
    }

    public struct OutboundMessage: Sendable, Equatable {
        /// The frame's bytes: a text frame's UTF-8, or a binary frame's audio (`isBinary`).
        public var text: ByteBuffer
        /// Audio, which a full socket may drop; control messages (mark, clear) are never dropped.
        public var isMedia: Bool
        /// A binary frame (Vonage's audio), not a text one.
        public var isBinary: Bool

        init(_ text: String) {
            self.text = ByteBuffer(string: text)
            isMedia = false
            isBinary = false
        }

        init(media: ByteBuffer, binary: Bool = false) {
            text = media
            isMedia = true
            isBinary = binary
        }
    }

    public let events: AsyncStream<MediaStreamEvent>
    let continuation: AsyncStream<MediaStreamEvent>.Continuation
    let outbound: PacedMediaQueue
    var pacer: Pacer<[UInt8]> { outbound.pacer }
    let scheduler: PacerScheduler<[UInt8]>
    let socket: Socket
    /// Finished by `finish()`: `run()` waits on it.
    let ended: AsyncStream<Never>
    private let endedContinuation: AsyncStream<Never>.Continuation
    let state = Mutex(State())
    let logger: Logger

    /// The words this stream speaks.
    public let dialect: MediaStreamDialect

    struct State {
        var streamSid = ""
        var mediaPrefix = Array(TwilioMediaStreamCodec.mediaPrefix(streamSid: "").utf8)
        /// Audio of a message longer than a frame (or not a whole number of them), not yet a `media` event.
        var partialFrame: [UInt8] = []
        /// A browser's microphone or a Vonage stream (linear PCM, often 16 kHz) to the call's 8 kHz.
        var microphone: Resampler?
        /// The call's 8 kHz to a 16 kHz Vonage stream.
        var widener: VonageDialect.Widener?
        /// Marks of a dialect without its own (Vonage's), each with the frames sent to the provider
        /// before it that have not played yet by this leg's count: echoed when that reaches zero.
        var countedMarks: [(name: String, framesAhead: Int)] = []
        /// A 16 kHz microphone as it came, not yet cut into frames beside the μ-law (`partialFrame`).
        var partialWideband: [Int16] = []
        var chunks = 0
        var start: MediaStreamStart?
        var unknown = 0
        var malformed = 0
        var finished = false
        /// Waiting in `waitForStart()`.
        var startWaiters: [CheckedContinuation<MediaStreamStart?, Never>] = []
        var mediaHandler: (@Sendable (MediaStreamMedia) -> Bool)?
        /// `media` events queued to `events` and not yet reported consumed.
        var queuedMedia = 0
        /// Media ticks seen, counted from the stream's turn (`run()`); it writes on multiples of
        /// `framesPerWrite`.
        var ticks = 0
        /// Frames Twilio holds by our count: + each frame sent, − one a tick (it plays 20 ms a
        /// tick), none after a `clear`.
        var twilioBuffered = 0
    }

    public init(dialect: MediaStreamDialect = .twilio, scheduler: PacerScheduler<[UInt8]>, queuedFrames: Int = 25, logger: Logger, socket: Socket) {
        self.dialect = dialect
        self.scheduler = scheduler
        self.outbound = PacedMediaQueue(queuedFrames: queuedFrames)
        self.socket = socket
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream(of: MediaStreamEvent.self, bufferingPolicy: .bufferingNewest(200))
        (ended, endedContinuation) = AsyncStream.makeStream(of: Never.self)
    }

    public var streamSid: String { state.withLock { $0.streamSid } }
    /// The `start` message, once it came.
    public var start: MediaStreamStart? { state.withLock { $0.start } }
    /// Whether the stream is over (socket closed, `stop`, or hung up).
    public var isFinished: Bool { state.withLock { $0.finished } }
    public var counters: (unknown: Int, malformed: Int) { state.withLock { ($0.unknown, $0.malformed) } }

    /// The `start` message once it has come, or nil if the stream ends first.
    public func waitForStart() async -> MediaStreamStart? {
        await withCheckedContinuation { continuation in
            let now = state.withLock { s -> MediaStreamStart?? in
                if let start = s.start { return .some(start) }
                if s.finished { return .some(nil) }
                s.startWaiters.append(continuation)
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// One text frame from Twilio. A malformed one is logged and skipped; the stream carries on.
    @discardableResult
    public func receive(_ text: String) -> Received {
        accept { () throws(TwilioMediaStreamCodec.Failure) in try dialect.decodeEvent(text) }
    }

    /// One text frame's bytes, as read from the socket: `media` and `mark` are decoded from the
    /// bytes in place; anything else by the general decoder (the scan is not repeated).
    @discardableResult
    public func receive(_ frame: ByteBuffer) -> Received {
        guard dialect == .twilio else { return receive(String(buffer: frame)) }
        if let fast = frame.withUnsafeReadableBytes({ TwilioMediaStreamCodec.fastEvent(utf8: $0.assumingMemoryBound(to: UInt8.self)) }) {
            return accept(fast)
        }
        return accept { () throws(TwilioMediaStreamCodec.Failure) in try TwilioMediaStreamCodec.parseEvent(String(buffer: frame)) }
    }

    /// One binary frame: Vonage's audio (16-bit little-endian PCM at the rate its
    /// `websocket:connected` named). In any other dialect, or before that message, it is malformed.
    @discardableResult
    public func receive(audio frame: ByteBuffer) -> Received {
        accept { () throws(TwilioMediaStreamCodec.Failure) in
            guard dialect.carriesBinaryAudio else { throw .invalidField("a binary frame (this dialect's audio is text)") }
            guard state.withLock({ $0.start != nil }) else { throw .invalidField("audio before websocket:connected") }
            guard frame.readableBytes % 2 == 0 else { throw .invalidField("audio (16-bit PCM of an odd length)") }
            let bytes = frame.withUnsafeReadableBytes { [UInt8]($0) }
            return .message(.media(MediaStreamMedia(chunk: 0, timestamp: 0, payload: bytes)), streamSid: nil)
        }
    }

    private func accept(_ decode: () throws(TwilioMediaStreamCodec.Failure) -> TwilioMediaStreamCodec.Decoded<MediaStreamEvent>) -> Received {
        do {
            return accept(try decode())
        } catch {
            state.withLock { $0.malformed += 1 }
            logger.warning("malformed media-stream message", metadata: ["stream": "\(streamSid)", "error": "\(error)"])
            return .malformed("\(error)")
        }
    }

    private func accept(_ decoded: TwilioMediaStreamCodec.Decoded<MediaStreamEvent>) -> Received {
        switch decoded {
        case .message(let event, let sid):
            if case .start(let start) = event {
                let microphone = dialect.sendsLinearAudioAtItsOwnRate && start.sampleRate != 8000 ? try? Resampler(from: start.sampleRate, to: 8000) : nil
                let waiters = state.withLock { s in
                    s.microphone = microphone
                    s.widener = dialect == .vonage && start.sampleRate == Self.widebandRate ? VonageDialect.Widener() : nil
                    s.streamSid = start.streamSid
                    s.mediaPrefix = Array(dialect.mediaPrefix(streamSid: start.streamSid).utf8)
                    s.start = start
                    defer { s.startWaiters = [] }
                    return s.startWaiters
                }
                continuation.yield(event)
                for waiter in waiters { waiter.resume(returning: start) }
                return .accepted
            }
            if let sid, !sid.isEmpty, state.withLock({ $0.streamSid.isEmpty }) {
                // media before start: the protocol puts start first; refuse to guess a stream.
                state.withLock { $0.malformed += 1 }
                return .malformed("\(event) before start (stream \(sid))")
            }
            if case .media(let media) = event {
                if dialect == .twilio {
                    deliver(media)   // Twilio's own 20 ms frames, as they came
                } else {
                    for frame in frames(of: dialect.sendsLinearAudioAtItsOwnRate ? narrowband(media) : media) { deliver(frame) }
                }
                return .accepted
            }
            continuation.yield(event)
            if event == .stop { finish(); return .stopped }
            return .accepted
        case .acknowledged:
            return .accepted
        case .unknownEvent(let name):
            state.withLock { $0.unknown += 1 }
            return .unknown(name)
        }
    }

    /// A browser's or Vonage's linear PCM, at the rate its start named, as the call's 8 kHz μ-law — and, from a
    /// 16 kHz microphone, the samples as they came (`wideband`: what a 16 kHz recognizer hears).
    private func narrowband(_ media: MediaStreamMedia) -> MediaStreamMedia {
        var media = media
        let samples = PCM16.samples(media.payload)
        let (narrow, wideband) = state.withLock { s in (s.microphone?.process(samples), s.start?.sampleRate == Self.widebandRate) }
        media.payload = G711.encode(narrow ?? samples, law: .muLaw)
        media.wideband = wideband ? samples : nil
        return media
    }

    static let widebandRate = 16_000

    /// One 20 ms frame to the media handler where it arrived, or to `events`.
    private func deliver(_ media: MediaStreamMedia) {
        let handler = state.withLock { s in s.queuedMedia == 0 ? s.mediaHandler : nil }
        if let handler, handler(media) { return }
        state.withLock { $0.queuedMedia += 1 }
        continuation.yield(.media(media))
    }

    /// Audio of any length as whole 20 ms frames, numbered and timed by this leg; a remainder
    /// waits for the next message.
    /// A wideband leg's 16 kHz audio is cut the same way, 320 samples beside each frame (it runs
    /// ahead of the μ-law by the resampler's delay, a frame or two; never more than 200 ms is kept).
    private func frames(of media: MediaStreamMedia) -> [MediaStreamMedia] {
        state.withLock { s in
            s.partialFrame += media.payload
            if let wideband = media.wideband {
                s.partialWideband += wideband
                if s.partialWideband.count > 3_200 { s.partialWideband.removeFirst(s.partialWideband.count - 3_200) }
            }
            var frames: [MediaStreamMedia] = []
            let n = Self.frameBytes
            while s.partialFrame.count >= n {
                s.chunks += 1
                var wideband: [Int16]?
                if s.partialWideband.count >= 2 * n {
                    wideband = Array(s.partialWideband.prefix(2 * n))
                    s.partialWideband.removeFirst(2 * n)
                }
                frames.append(MediaStreamMedia(track: media.track, chunk: s.chunks, timestamp: (s.chunks - 1) * AudioFrame.durationMilliseconds,
                                               payload: Array(s.partialFrame.prefix(n)), wideband: wideband))
                s.partialFrame.removeFirst(n)
            }
            return frames
        }
    }

    public func setMediaHandler(_ handler: (@Sendable (MediaStreamMedia) -> Bool)?) {
        state.withLock { $0.mediaHandler = handler }
    }

    public var outboundQueueCounters: BoundedQueueCounters? { pacer.input.meterCounters }
    public var outboundRoom: Int { outbound.room }
    public func trySend(_ commands: [MediaStreamCommand]) -> Bool { outbound.trySend(commands) }
    @discardableResult
    public func holdPlayback(_ held: Bool) -> Bool {
        outbound.hold(held)
        // What the far end buffered plays on unless it can pause too (a browser can).
        if let message = dialect.encodePlayback(held: held) { socket.send([OutboundMessage(message)]) }
        return true
    }

    @discardableResult
    public func observePlayout(_ observer: (@Sendable ([UInt8]?) -> Void)?) -> Bool {
        pacer.observeTicks(observer)
        return true
    }

    public func mediaEventConsumed() {
        state.withLock { $0.queuedMedia = max(0, $0.queuedMedia - 1) }
    }

    /// The socket closed (or Twilio sent stop): the stream is over.
    public func finish() {
        let (first, waiters) = state.withLock { s in
            defer { s.finished = true; s.startWaiters = []; s.mediaHandler = nil }
            return (!s.finished, s.startWaiters)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
        guard first else { return }
        continuation.finish()
        pacer.input.finish()
        endedContinuation.finish()
    }

    public func send(_ command: MediaStreamCommand) async {
        await outbound.send(command)
        if command == .clear {
            // The queue here is dropped; tell Twilio to drop what it buffered.
            if let clear = dialect.encodeCommand(.clear, streamSid: streamSid) { socket.send([OutboundMessage(clear)]) }
            state.withLock { s in
                s.twilioBuffered = 0
                s.countedMarks = []   // not played: the clear's generation ignores them anyway
            }
        }
    }

    public func hangUp() async {
        finish()
        await socket.close()
    }

    /// 20 ms of μ-law.
    static let frameBytes = 160

    /// One write every `framesPerWrite` media ticks.
    public static let framesPerWrite = 3
    /// Most frames Twilio is sent ahead of playout: 100 ms.
    public static let maximumBufferedFrames = 5
}
