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
}

extension SIPCallLeg: MediaStreamLeg {}
