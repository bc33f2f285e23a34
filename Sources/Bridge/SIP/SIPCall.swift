import Synchronization

/// Why a call never connected.
public enum SIPCallFailure: Error, Sendable, Equatable, CustomStringConvertible {
    case busy                      // 486
    case rejected                  // 603
    case noAnswer                  // ring timeout (CANCEL), 408, 480
    case cancelled                 // the operator cancelled
    case redirected(Int, String?)  // 3xx
    case authenticationFailed(Int) // 401/407 after our credentials
    case credentialsWithheld(Int)  // 401/407 from a host that is not the gateway the credentials are for
    case failed(Int)               // any other final status
    case timeout                   // Timer B: no response at all
    case transport(String)

    public var description: String {
        switch self {
        case .busy: "busy"
        case .rejected: "rejected"
        case .noAnswer: "no_answer"
        case .cancelled: "cancelled"
        case .redirected(let code, let target): "redirected_\(code)" + (target.map { " to \($0)" } ?? "")
        case .authenticationFailed(let code): "authentication_failed_\(code)"
        case .credentialsWithheld(let code): "credentials_withheld_\(code)"
        case .failed(let code): "sip_\(code)"
        case .timeout: "sip_timeout"
        case .transport(let message): "transport: \(message)"
        }
    }
}

/// Why a connected call ended.
public enum SIPCallEnd: Sendable, Equatable {
    case localHangup
    case remoteHangup
    case mediaTimeout
    case noACK
    case shutdown
}

public enum SIPCallEvent: Sendable, Equatable {
    case trying
    case ringing(earlyMedia: Bool)
    case answered
    case failed(SIPCallFailure)
    case ended(SIPCallEnd)
    case dtmf(Character)
}

/// One call, outbound or inbound, as the rest of VoiceBridge sees it: a stream of events, the RTP
/// session once media is up, and two things to do — cancel (before answer) or hang up (after).
public final class SIPCall: Sendable {
    public enum Direction: Sendable { case outbound, inbound }

    public let callID: String
    public let direction: Direction
    public let localNumber: String
    public let remoteNumber: String
    /// `X-Outbound-Call-ID` on the INVITE, when present.
    public let outboundCallID: String?
    /// The INVITE's headers (inbound calls): application headers such as `X-…` travel here.
    public let requestHeaders: SIPHeaders
    /// What happens to the call, ending with `.failed` or `.ended`. One reader at a time: an event
    /// goes to whichever iterator awaits it (the call's leg reads them once it runs). `ending`
    /// says how the call ended without reading the stream.
    public let events: AsyncStream<SIPCallEvent>
    private let continuation: AsyncStream<SIPCallEvent>.Continuation
    private let mediaSession = Mutex<RTPSession?>(nil)
    private let finalEvent = Mutex<SIPCallEvent?>(nil)
    /// Where a transfer in progress hears from its REFER (nil: none in progress).
    private let transferUpdates = Mutex<AsyncStream<SIPTransferProgress>.Continuation?>(nil)
    unowned let userAgent: SIPUserAgent

    init(callID: String, direction: Direction, localNumber: String, remoteNumber: String, outboundCallID: String?,
         requestHeaders: SIPHeaders = SIPHeaders(), userAgent: SIPUserAgent) {
        self.callID = callID
        self.requestHeaders = requestHeaders
        self.direction = direction
        self.localNumber = localNumber
        self.remoteNumber = remoteNumber
        self.outboundCallID = outboundCallID
        self.userAgent = userAgent
        (events, continuation) = AsyncStream.makeStream(of: SIPCallEvent.self, bufferingPolicy: .bufferingNewest(64))
    }

    /// The media session, once the call is answered (or has early media).
    public var media: RTPSession? { mediaSession.withLock { $0 } }
    public var isFinished: Bool { ending != nil }
    /// The `.failed` or `.ended` event the call ended with; nil while it goes on.
    public var ending: SIPCallEvent? { finalEvent.withLock { $0 } }

    func attach(_ session: RTPSession) { mediaSession.withLock { $0 = session } }

    func emit(_ event: SIPCallEvent) {
        switch event {
        case .failed, .ended:
            finalEvent.withLock { $0 = $0 ?? event }
            continuation.yield(event)
            continuation.finish()
        default: continuation.yield(event)
        }
    }

    /// Before answer: CANCEL (sent once a provisional response has arrived, as RFC 3261 requires).
    public func cancel() async { await userAgent.cancel(callID: callID, reason: .cancelled) }

    /// After answer: BYE. Before answer this cancels.
    public func hangUp() async { await userAgent.hangUp(callID: callID) }

    func transferProgress(_ progress: SIPTransferProgress) {
        _ = transferUpdates.withLock { $0?.yield(progress) }
    }

    /// Blind transfer (RFC 3515): REFER to `target` with Referred-By, then the transferee's
    /// NOTIFYs until their final sipfrag (at most `timeout` on `clock`, the call's). The call is not
    /// hung up here: after `.answered` the caller is with the target and this leg should end;
    /// otherwise it goes on.
    public func transfer(to target: String, timeout: Duration = .seconds(45), clock: CallClock = .continuous) async -> SIPTransferOutcome {
        let (updates, input) = AsyncStream.makeStream(of: SIPTransferProgress.self, bufferingPolicy: .bufferingNewest(16))
        transferUpdates.withLock { $0 = input }
        defer {
            transferUpdates.withLock { $0 = nil }
            input.finish()
        }
        guard await userAgent.refer(callID: callID, target: target) else { return .refused(481) }
        return await withTaskGroup(of: Void.self) { group in
            // The deadline ends the stream, not the wait: what arrived before it still counts. So
            // does what arrived before this task was cancelled (the call ended): a transferee may
            // send its final NOTIFY and its BYE back to back, and the BYE must not hide the answer.
            group.addTask {
                try? await clock.sleep(for: timeout)
                input.finish()
            }
            defer { group.cancelAll() }
            return await SIPTransferOutcome(reading: updates)
        }
    }

    /// BYE with a reason other than an ordinary hang-up (media timeout, shutdown).
    public func hangUp(reason: SIPCallEnd) async { await userAgent.hangUp(callID: callID, reason: reason) }
}
