import Pipeline

/// Anything that carries one call's audio in the media-stream model: a SIP call through the
/// bridge, or a Twilio stream over a WebSocket. The session behind it cannot tell which.
public protocol MediaStreamLeg: Sendable {
    /// `start`, then `media`/`dtmf`/`mark`, then `stop`.
    var events: AsyncStream<MediaStreamEvent> { get }
    /// Paced, backpressured playout: a `media` send waits when the leg is ~100 ms ahead.
    func send(_ command: MediaStreamCommand) async
    /// Ends the call from our side.
    func hangUp() async
    /// Drives the leg until the call ends; owned by the call's task.
    func run() async

    /// Offers each `media` event to `handler` where it arrives (a socket's event loop) before it
    /// is queued to `events`: true means handled there, and it is not queued. A leg only offers
    /// one when every `media` it queued earlier has been reported by `mediaEventConsumed()`, so
    /// caller audio is handled in order whichever way each frame goes. Optional: a leg may ignore
    /// it and queue everything. Set nil when done: the handler usually holds its session.
    func setMediaHandler(_ handler: (@Sendable (MediaStreamMedia) -> Bool)?)
    /// The consumer of `events` has finished with one `media` event.
    func mediaEventConsumed()
    /// The counters of the leg's outbound queue (agent audio waiting for the pacer), if it has one.
    var outboundQueueCounters: BoundedQueueCounters? { get }
    /// Frames and marks the leg's queue takes now without waiting.
    var outboundRoom: Int { get }
    /// Queues 20 ms μ-law frames and marks without waiting, all or none (false: none queued).
    func trySend(_ commands: [MediaStreamCommand]) -> Bool
    /// Holds the agent's audio where it is (nothing dropped) or plays on from there; false: this
    /// leg cannot hold (what it queued plays on).
    @discardableResult
    func holdPlayback(_ held: Bool) -> Bool
    /// `observer` hears each 20 ms of the agent's audio as the leg sends it (nil on a tick with
    /// nothing to send): an echo canceller's far end. False: this leg cannot tell.
    @discardableResult
    func observePlayout(_ observer: (@Sendable ([UInt8]?) -> Void)?) -> Bool
    /// Whether the line ended because the peer sent no media (neither RTP nor RTCP) for the media
    /// timeout, rather than by a hang-up: an operator tells a dead line from a callee who hung up.
    var endedByMediaTimeout: Bool { get }
    /// Presses `key` as an RFC 4733 event (100 ms); false: this leg carries no such events (the
    /// key is then played as its tone).
    func sendKey(_ key: Character) -> Bool
}

extension MediaStreamLeg {
    public func setMediaHandler(_ handler: (@Sendable (MediaStreamMedia) -> Bool)?) {}
    public func sendKey(_ key: Character) -> Bool { false }
    public func mediaEventConsumed() {}
    public var outboundQueueCounters: BoundedQueueCounters? { nil }
    public var outboundRoom: Int { 0 }
    public func trySend(_ commands: [MediaStreamCommand]) -> Bool { false }
    @discardableResult
    public func holdPlayback(_ held: Bool) -> Bool { false }
    @discardableResult
    public func observePlayout(_ observer: (@Sendable ([UInt8]?) -> Void)?) -> Bool { false }
    public var endedByMediaTimeout: Bool { false }
}

extension SIPCallLeg: PacedOutboundLeg {}
