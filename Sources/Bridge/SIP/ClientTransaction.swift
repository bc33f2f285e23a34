/// RFC 3261 §17.1 timers for one client transaction, as plain state the UA's timer loop drives.
///
/// INVITE: Timer A retransmits from T1, doubling, until any response; Timer B (64·T1) times out
/// only while no response came (§17.1.1.2: a ringing callee may ring longer — the call's own ring
/// timeout ends that, with CANCEL).
/// Non-INVITE: Timer E retransmits from T1 doubling to T2 (T2 after a provisional); Timer F times
/// out. A completed INVITE transaction keeps its ACK to answer retransmitted final responses.
struct ClientTransaction {
    enum Kind { case invite, nonInvite }

    static let t1: Duration = .milliseconds(500)
    static let t2: Duration = .seconds(4)
    static let timeout: Duration = .seconds(32)   // 64·T1: Timers B and F

    let kind: Kind
    let callID: String
    let method: String
    let destination: SIPDestination
    /// Over TCP or TLS the transport delivers: nothing is retransmitted, only Timers B/F run.
    let reliable: Bool
    var request: [UInt8]
    var interval: Duration = ClientTransaction.t1
    var nextRetransmit: ContinuousClock.Instant?
    var deadline: ContinuousClock.Instant?
    var completedUntil: ContinuousClock.Instant?
    var ack: [UInt8]?
    var retransmissions = 0

    init(kind: Kind, callID: String, method: String, request: [UInt8], destination: SIPDestination, reliable: Bool = false, now: ContinuousClock.Instant) {
        self.kind = kind
        self.reliable = reliable
        self.callID = callID
        self.method = method
        self.request = request
        self.destination = destination
        self.nextRetransmit = now.advanced(by: ClientTransaction.t1)
        self.deadline = now.advanced(by: ClientTransaction.timeout)
    }

    enum TimerAction { case none, retransmit, timeout, expire }

    /// When `fire` next has something to do: the end of Timer D/K, Timer B/F, or the next retransmission.
    var nextDeadline: ContinuousClock.Instant? {
        if let done = completedUntil { return done }
        return [deadline, reliable ? nil : nextRetransmit].compactMap { $0 }.min()
    }

    mutating func fire(now: ContinuousClock.Instant) -> TimerAction {
        if let done = completedUntil { return now >= done ? .expire : .none }
        if let deadline, now >= deadline { return .timeout }
        guard !reliable, let next = nextRetransmit, now >= next else { return .none }
        retransmissions += 1
        interval = kind == .invite ? interval * 2 : min(interval * 2, ClientTransaction.t2)
        nextRetransmit = now.advanced(by: interval)
        return .retransmit
    }

    /// A provisional response: INVITE stops retransmitting and Timer B (Proceeding); non-INVITE slows to T2.
    mutating func provisional(now: ContinuousClock.Instant) {
        if kind == .invite { nextRetransmit = nil; deadline = nil } else { interval = ClientTransaction.t2; nextRetransmit = now.advanced(by: interval) }
    }

    /// The call gave up on a proceeding INVITE (its CANCEL went unanswered): the transaction stays
    /// 64·T1 more to ACK a late final response, then ends, so none outlives its call for good.
    mutating func abandon(now: ContinuousClock.Instant) {
        if deadline == nil { deadline = now.advanced(by: ClientTransaction.timeout) }
    }

    /// A final response: the transaction stops; an INVITE one lingers (Timer D) to re-ACK.
    mutating func complete(now: ContinuousClock.Instant, ack: [UInt8]?) {
        nextRetransmit = nil
        self.ack = ack
        completedUntil = now.advanced(by: kind == .invite && ack != nil ? ClientTransaction.timeout : .zero)
    }
}
