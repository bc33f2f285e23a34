import Bridge
import Pipeline
import Synchronization

/// A media stream VoiceBridge asked for and another part of the server holds open: the person's
/// side of a warm transfer through Twilio. The WebSocket that carries it stays open until the
/// session is done with it — `hangUp` closes the stream and lets the socket's handler return.
final class HandedOverLeg: MediaStreamLeg {
    private let leg: any MediaStreamLeg
    private let released: Mutex<CheckedContinuation<Void, Never>?>

    init(_ leg: any MediaStreamLeg, done: CheckedContinuation<Void, Never>) {
        self.leg = leg
        released = Mutex(done)
    }

    var events: AsyncStream<MediaStreamEvent> { leg.events }
    func send(_ command: MediaStreamCommand) async { await leg.send(command) }
    func run() async { await leg.run() }
    func setMediaHandler(_ handler: (@Sendable (MediaStreamMedia) -> Bool)?) { leg.setMediaHandler(handler) }
    func mediaEventConsumed() { leg.mediaEventConsumed() }
    var outboundQueueCounters: BoundedQueueCounters? { leg.outboundQueueCounters }
    var outboundRoom: Int { leg.outboundRoom }
    func trySend(_ commands: [MediaStreamCommand]) -> Bool { leg.trySend(commands) }
    func holdPlayback(_ held: Bool) -> Bool { leg.holdPlayback(held) }
    func observePlayout(_ observer: (@Sendable ([UInt8]?) -> Void)?) -> Bool { leg.observePlayout(observer) }

    func hangUp() async {
        await leg.hangUp()
        released.withLock { done in
            done?.resume()
            done = nil
        }
    }
}
