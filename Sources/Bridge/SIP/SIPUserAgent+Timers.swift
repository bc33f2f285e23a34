import NIOCore

/// The user agent's timers — transactions (A–K), cached responses, ringing, an outbound call's
/// ring and CANCEL deadlines, Timer G and H — on its clock, and what ends transactions early: a
/// peer found unreachable.
extension SIPUserAgent {
    func fireTimers(now: ContinuousClock.Instant) async {
        firingTimers = true
        defer {
            firingTimers = false
            timersChanged()
        }
        for (key, var tx) in transactions {
            switch tx.fire(now: now) {
            case .none: transactions[key] = tx
            case .retransmit:
                transactions[key] = tx
                socket?.send(tx.request, to: tx.destination.address)
                if tx.retransmissions == 1 { probe(tx.destination.address) }   // T1 without a word back
            case .expire: transactions[key] = nil
            case .timeout:
                transactions[key] = nil
                await transactionFailed(callID: tx.callID, method: tx.method, .timeout)
            }
        }
        serverResponses = serverResponses.filter { $0.value.until > now }
        ringingTimers(now: now)
        for id in Array(outbound.keys) { await outboundTimers(id, now: now) }
        for id in Array(inbound.keys) { await inboundTimers(id, now: now) }
    }

    static let probesAtOnce = 32

    /// Re-arms the timer alarm for the earliest deadline now held (not while `fireTimers` runs).
    func timersChanged() {
        guard !firingTimers else { return }
        timerAlarm.arm(at: nextTimerDeadline())
    }

    /// The earliest time `fireTimers` has something to do: a transaction's timer, a cached
    /// response's expiry, a ringing call's answer, an outbound call's ring or CANCEL deadline, an
    /// unacknowledged 200's retransmission or Timer H.
    func nextTimerDeadline() -> ContinuousClock.Instant? {
        var earliest: ContinuousClock.Instant?
        func consider(_ instant: ContinuousClock.Instant?) {
            guard let instant else { return }
            if earliest.map({ instant < $0 }) ?? true { earliest = instant }
        }
        for tx in transactions.values { consider(tx.nextDeadline) }
        for cached in serverResponses.values { consider(cached.until) }
        for pending in ringingCalls.values { consider(pending.answerAt) }
        for d in outbound.values where d.phase == .calling {
            if d.pendingCancel == nil { consider(d.ringDeadline) }
            consider(d.cancelSentAt?.advanced(by: ClientTransaction.timeout))
        }
        for d in inbound.values where !d.acked {
            consider(d.ackDeadline)
            consider(d.nextRetransmit)
        }
        return earliest
    }

    /// Over UDP, asks whether anything still listens at `address` (see UDPPortProbe); a refusal
    /// comes back through peerUnreachable. Probes beyond the bounded queue are dropped: the
    /// transaction's own timers still end it.
    func probe(_ address: SocketAddress) {
        guard configuration.transport == .udp else { return }
        probeInput.yield(address)
    }

    /// A reliable transport could not reach `address`, or a UDP probe drew ICMP port unreachable:
    /// the transactions waiting on it fail now, as on a 503 (RFC 3261 §8.1.3.1), not 32 s later at
    /// Timer B, and answered calls still waiting for their ACK from there end (Timer H's work).
    func peerUnreachable(_ address: SocketAddress, reason: String) async {
        logger.info("SIP peer unreachable", metadata: ["peer": "\(address)", "reason": "\(reason)"])
        for (key, tx) in transactions where tx.completedUntil == nil && tx.destination.address == address {
            transactions[key] = nil
            await transactionFailed(callID: tx.callID, method: tx.method, .transport("cannot reach \(address): \(reason)"))
        }
        for (callID, d) in inbound where !d.acked && d.source == address {
            await endInbound(callID, reason: .noACK, sendBye: false)
        }
    }

    /// Timer B or F ran out, or the transport gave up: no final response will come.
    func transactionFailed(callID: String, method: String, _ failure: SIPCallFailure) async {
        if method == "INVITE", outbound[callID] != nil {
            await failOutbound(callID, failure)
        }
        if method == "REFER" { dialogCall(callID)?.transferProgress(.refused(0)) }
        // BYE and CANCEL timeouts: the dialog is already gone or ends on its own timers.
    }
}
