import Pipeline
import Synchronization

/// A SIP call seen as a media stream: RTP in becomes `start`/`media`/`dtmf`/`mark`/`stop` events,
/// and `media`/`mark`/`clear` commands become paced RTP out — the same model a Twilio stream has.
///
/// Outbound audio waits in a suspend-producer queue (at most `queuedFrames` × 20 ms), so a fast
/// producer is held back; the pacer sends it at real time; `clear` overtakes it. The pacer and
/// the jitter buffer run on the shared media tick. `run()` belongs to the task that owns the call.
public final class SIPCallLeg: Sendable {
    public let call: SIPCall
    public let events: AsyncStream<MediaStreamEvent>
    private let continuation: AsyncStream<MediaStreamEvent>.Continuation
    private let rtp: RTPSession
    let outbound: PacedMediaQueue
    private var pacer: Pacer<[UInt8]> { outbound.pacer }
    private let scheduler: PacerScheduler<[UInt8]>
    private let state = Mutex(State())
    public let streamSid: String

    private struct State {
        var chunk = 0
        /// Whether the jitter buffer released audio on the current tick.
        var receivedThisTick = false
    }

    /// `queuedFrames`: how much agent audio may wait here for playout (25 × 20 ms = 500 ms).
    public init(call: SIPCall, scheduler: PacerScheduler<[UInt8]>, queuedFrames: Int = 25) throws {
        guard let rtp = call.media else { throw SIPCallFailure.transport("the call has no media session") }
        self.call = call
        self.rtp = rtp
        self.scheduler = scheduler
        self.outbound = PacedMediaQueue(queuedFrames: queuedFrames)
        self.streamSid = "MZ" + String(call.callID.hashValue, radix: 16).replacingOccurrences(of: "-", with: "")
        // Live input: when nobody reads fast enough the oldest audio goes, never the socket reader.
        (events, continuation) = AsyncStream.makeStream(of: MediaStreamEvent.self, bufferingPolicy: .bufferingNewest(200))
    }

    /// Runs the leg until the call ends: emits `start`, wires RTP both ways, emits `stop`.
    public func run() async {
        let direction = call.direction == .outbound ? "outbound" : "inbound"
        continuation.yield(.start(MediaStreamStart(
            streamSid: streamSid, callSid: call.callID, tracks: ["inbound"],
            customParameters: ["call_id": call.callID, "from": direction == "outbound" ? call.localNumber : call.remoteNumber,
                               "to": direction == "outbound" ? call.remoteNumber : call.localNumber, "direction": direction,
                               "outbound_call_id": call.outboundCallID ?? ""])))
        let law = rtp.law
        let start = ContinuousClock.now
        // `fromPeer`: the frame came from the jitter buffer. Silence filled in must not count as
        // received, or the next tick would fill nothing and a silent peer's stream ran at 25 frames
        // a second (every pause and end-of-turn window on a SIP call took twice its length).
        let emit: @Sendable ([UInt8], _ fromPeer: Bool) -> Void = { [self] ulaw, fromPeer in
            let chunk = state.withLock { s -> Int in
                s.chunk += 1
                if fromPeer { s.receivedThisTick = true }
                return s.chunk
            }
            let now = ContinuousClock.now
            let (seconds, atto) = (now - start).components
            continuation.yield(.media(MediaStreamMedia(chunk: chunk, timestamp: Int(seconds) * 1000 + Int(atto / 1_000_000_000_000_000), payload: ulaw,
                                                       receivedAt: now)))
        }
        rtp.setHandlers(media: { payload in
            emit(law == .muLaw ? payload : G711.encode(G711.decode(payload, law: .aLaw), law: .muLaw), true)
        }, dtmf: { [continuation] digit in
            continuation.yield(.dtmf(track: "inbound_track", digit: digit))
        })
        // The tick that finds the peer silent too long says so here; the call's end finishes it.
        let (mediaTimeouts, mediaTimedOut) = AsyncStream.makeStream(of: Void.self)
        let ticker = scheduler.register { [self] in
            pacer.tick { output in
                switch output {
                case .audio(let frame, _): rtp.send(frame: law == .muLaw ? frame : G711.encode(G711.decode(frame, law: .muLaw), law: .aLaw))
                case .mark(let name): continuation.yield(.mark(name))
                }
            }
            let outcome = rtp.tick()
            // A media stream is continuous (as Twilio's is): where the peer sent nothing for this
            // 20 ms (silence suppression, loss), the stream carries μ-law silence. Audio that is
            // only a tick late still sits in the jitter buffer: no gap is invented in the speech.
            if !state.withLock({ s -> Bool in defer { s.receivedThisTick = false }; return s.receivedThisTick }),
               outcome == .running, rtp.bufferedPackets == 0 {
                emit(PacedMediaQueue.silenceFrame, false)
            }
            switch outcome {
            case .running: return true
            case .closed: return false
            case .mediaTimeout:
                mediaTimedOut.yield()
                return false
            }
        }
        // The call's own events decide when the leg ends; a media timeout ends the call.
        await withDiscardingTaskGroup { group in
            group.addTask { [call] in
                for await event in call.events { if case .dtmf = event { continue } }
                mediaTimedOut.finish()
            }
            group.addTask { [call] in
                for await _ in mediaTimeouts {
                    await call.hangUp(reason: .mediaTimeout)
                    return
                }
            }
        }
        scheduler.unregister(ticker)
        pacer.input.finish()
        continuation.yield(.stop)
        continuation.finish()
    }


    /// Ends the call from our side (BYE, or CANCEL before answer).
    public func hangUp() async { await call.hangUp() }

    public var endedByMediaTimeout: Bool { call.ending == .ended(.mediaTimeout) }

    public func sendKey(_ key: Character) -> Bool {
        guard rtp.carriesTelephoneEvents else { return false }
        rtp.send(digit: key)
        return true
    }
}
