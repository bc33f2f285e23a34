import NIOCore

/// An inbound call that is ringing: answered by the timer loop when `answerAt` comes.
struct PendingAnswer {
    let invite: SIPMessage
    let source: SocketAddress
    let localTag: String
    let rtp: RTPSession
    let answer: SessionDescription
    let answerAt: ContinuousClock.Instant?   // nil: ring until CANCEL
}

/// An answered inbound call's dialog state (RFC 3261 §13.3, §17.2.1).
struct InboundDialog {
    let call: SIPCall
    let rtp: RTPSession
    let invite: SIPMessage
    let source: SocketAddress
    let localTag: String
    let ok: [UInt8]
    /// The proxies that record-routed the INVITE, in its order (RFC 3261 §12.1.1): our in-dialog
    /// requests carry them as Route headers and go to the first.
    var routeSet: [String] { invite.headers.values("Record-Route") }
    var nextHop: SocketAddress
    var acked = false
    var interval = ClientTransaction.t1
    var nextRetransmit: ContinuousClock.Instant?
    let ackDeadline: ContinuousClock.Instant
    var pendingBye: SIPCallEnd?
    var localCSeq: UInt32 = 1
}

extension SIPUserAgent {
    static let allowed = "INVITE, ACK, CANCEL, BYE, OPTIONS, NOTIFY"
    /// Methods the SIP RFCs define besides those we allow: refused with 405, anything else with 501.
    static let knownMethods: Set<String> = ["REGISTER", "PRACK", "SUBSCRIBE", "PUBLISH", "INFO", "REFER", "MESSAGE", "UPDATE"]

    func handleRequest(_ request: SIPMessage, from: SocketAddress) async {
        guard let method = request.method else { return }
        // A retransmitted request gets the final response we already sent (server transaction).
        if let branch = request.topVia?.branch, let cached = serverResponses[branch + method] {
            socket?.send(cached.response, to: from)
            return
        }
        switch method {
        case "INVITE": await handleInvite(request, from: from)
        case "ACK": await handleAck(request)
        case "BYE": await handleBye(request, from: from)
        case "CANCEL": await handleCancel(request, from: from)
        case "NOTIFY": handleNotify(request, from: from)
        case "OPTIONS":
            respond(response(200, to: request, toTag: randomToken(10), extra: [("Allow", Self.allowed), ("Accept", "application/sdp")]), to: request, at: from)
        case _ where Self.knownMethods.contains(method):   // a SIP method we do not take (REGISTER, MESSAGE, …)
            respond(response(405, to: request, toTag: randomToken(10), extra: [("Allow", Self.allowed)]), to: request, at: from)
        default:   // a method no SIP RFC defines (RFC 3261 §21.5.2)
            respond(response(501, to: request, toTag: randomToken(10), extra: [("Allow", Self.allowed)]), to: request, at: from)
        }
    }

    /// AI answer mode (seed 001): 100 Trying → 180 Ringing → 200 OK with an SDP answer.
    private func handleInvite(_ invite: SIPMessage, from: SocketAddress) async {
        guard let callID = invite.callID else { return }
        if invite.to?.tag != nil {   // a re-INVITE in a dialog we do not change: keep the media as it is
            if let d = inbound[callID] { socket?.send(d.ok, to: from) } else if outbound[callID] == nil {
                respond(response(481, to: invite, toTag: nil), to: invite, at: from)
            }
            return
        }
        if inbound[callID] != nil || answering.contains(callID) || ringingCalls[callID] != nil { return }   // a retransmission
        send(response(100, to: invite, toTag: nil), to: from)
        let localTag = randomToken(10)
        guard inbound.count < configuration.maxInboundCalls else {
            respond(response(486, to: invite, toTag: localTag), to: invite, at: from)
            return
        }
        var ringing = Duration.zero
        var ringForever = false
        switch admission(invite) {
        case .accept(let ring): ringing = ring
        case .unavailable:
            respond(response(503, to: invite, toTag: localTag), to: invite, at: from)
            return
        case .reject(let code):
            respond(response(code, to: invite, toTag: localTag), to: invite, at: from)
            return
        case .ringForever:
            ringForever = true
        }
        guard let offer = try? SessionDescription(parsing: invite.body) else {
            respond(response(488, to: invite, toTag: localTag, extra: [("Warning", "399 VoiceBridge \"an SDP offer is required\"")]), to: invite, at: from)
            return
        }
        answering.insert(callID)
        defer { answering.remove(callID) }
        let rtp: RTPSession
        do {
            rtp = try await openRTP()
        } catch {
            logger.warning("no RTP port for inbound call", metadata: ["error": "\(error)"])
            respond(response(503, to: invite, toTag: localTag), to: invite, at: from)
            return
        }
        let crypto = configuration.srtp == .off ? nil : SDESCrypto.fresh()
        guard let (answer, audio) = SDPNegotiation.answer(to: offer, address: configuration.host, port: rtp.localPort, srtp: configuration.srtp, crypto: crypto),
              (try? apply(audio, to: rtp)) != nil else {
            await rtp.close()
            respond(response(488, to: invite, toTag: localTag), to: invite, at: from)
            return
        }
        if cancelled.remove(callID) != nil {   // CANCEL arrived while the RTP port was being opened
            await rtp.close()
            respond(response(487, to: invite, toTag: localTag), to: invite, at: from)
            return
        }
        send(response(180, to: invite, toTag: localTag, extra: dialogHeaders(invite)), to: from)
        let pending = PendingAnswer(invite: invite, source: from, localTag: localTag, rtp: rtp, answer: answer,
                                    answerAt: ringForever ? nil : clock.now.advanced(by: ringing))
        if ringing == .zero, !ringForever {
            self.answer(pending)
        } else {
            ringingCalls[callID] = pending   // the timer loop answers it; a CANCEL ends it with 487
        }
    }

    /// 200 OK with the SDP answer: the call is up.
    func answer(_ p: PendingAnswer) {
        guard let callID = p.invite.callID else { return }
        let ok = response(200, to: p.invite, toTag: p.localTag, extra: dialogHeaders(p.invite) + [("Allow", Self.allowed)], body: p.answer.serialized())
        respond(ok, to: p.invite, at: p.source)
        let call = SIPCall(callID: callID, direction: .inbound, localNumber: p.invite.to?.uri.user ?? "", remoteNumber: p.invite.from?.uri.user ?? "",
                           outboundCallID: p.invite.headers["X-Outbound-Call-ID"], requestHeaders: p.invite.headers, userAgent: self)
        call.attach(p.rtp)
        inbound[callID] = InboundDialog(call: call, rtp: p.rtp, invite: p.invite, source: p.source, localTag: p.localTag, ok: ok.serialized(),
                                        nextHop: nextHop(routeSet: p.invite.headers.values("Record-Route"), remoteTarget: nil, fallback: p.source),
                                        nextRetransmit: clock.now.advanced(by: ClientTransaction.t1), ackDeadline: clock.now.advanced(by: configuration.ackTimeout))
        call.emit(.answered)
        // The call is handed over at its ACK (`handleAck`), when the dialog is confirmed (RFC 3261
        // §13.3.1.4): an INVITE nobody ACKs — a flood's, or a caller gone — costs a dialog and an
        // RTP port until Timer H, not an agent.
    }

    /// Contact, and the INVITE's Record-Route copied (RFC 3261 §12.1.1), for a response that makes a dialog.
    private func dialogHeaders(_ invite: SIPMessage) -> [(String, String)] {
        [("Contact", contact)] + invite.headers.values("Record-Route").map { ("Record-Route", $0) }
    }

    /// Answers ringing calls whose time has come.
    func ringingTimers(now: ContinuousClock.Instant) {
        for (callID, pending) in ringingCalls {
            guard let at = pending.answerAt, now >= at else { continue }
            ringingCalls[callID] = nil
            self.answer(pending)
        }
    }

    /// Ends a ringing call: 487 to its INVITE (after a CANCEL, or at shutdown).
    func endRinging(_ callID: String) async {
        guard let pending = ringingCalls.removeValue(forKey: callID) else { return }
        await pending.rtp.close()
        respond(response(487, to: pending.invite, toTag: pending.localTag), to: pending.invite, at: pending.source)
    }

    private func handleAck(_ ack: SIPMessage) async {
        guard let callID = ack.callID, var d = inbound[callID], !d.acked else { return }
        d.acked = true
        d.nextRetransmit = nil
        inbound[callID] = d
        incoming.yield(d.call)
        if let reason = d.pendingBye { await endInbound(callID, reason: reason, sendBye: true) }
    }

    private func handleBye(_ bye: SIPMessage, from: SocketAddress) async {
        guard let callID = bye.callID else { return }
        if let d = outbound[callID] {
            respond(response(200, to: bye, toTag: nil), to: bye, at: from)
            outbound[callID] = nil
            await d.rtp.close()
            d.call.emit(.ended(.remoteHangup))
        } else if let d = inbound[callID] {
            respond(response(200, to: bye, toTag: nil), to: bye, at: from)
            inbound[callID] = nil
            await d.rtp.close()
            d.call.emit(.ended(.remoteHangup))
        } else {
            respond(response(481, to: bye, toTag: nil), to: bye, at: from)
        }
    }

    private func handleCancel(_ cancel: SIPMessage, from: SocketAddress) async {
        guard let callID = cancel.callID else { return }
        respond(response(200, to: cancel, toTag: nil), to: cancel, at: from)
        // A CANCEL after the 200 has no effect (RFC 3261 §9.2); while ringing it ends the INVITE.
        if ringingCalls[callID] != nil { await endRinging(callID) } else if answering.contains(callID) { cancelled.insert(callID) }
    }

    func inboundTimers(_ callID: String, now: ContinuousClock.Instant) async {
        guard var d = inbound[callID], !d.acked else { return }
        if now >= d.ackDeadline {   // Timer H: no ACK ever came
            await endInbound(callID, reason: .noACK, sendBye: true)
        } else if let next = d.nextRetransmit, now >= next {   // Timer G
            socket?.send(d.ok, to: d.source)
            if d.interval == ClientTransaction.t1 { probe(d.source) }   // T1 without an ACK
            d.interval = min(d.interval * 2, ClientTransaction.t2)
            d.nextRetransmit = now.advanced(by: d.interval)
            inbound[callID] = d
        }
    }

    /// BYE from our side. Before the ACK arrives it waits for it (RFC 3261 §15), unless shutting down.
    func endInbound(_ callID: String, reason: SIPCallEnd, sendBye: Bool) async {
        guard var d = inbound[callID] else { return }
        if sendBye, !d.acked, reason != .noACK, reason != .shutdown {
            d.pendingBye = reason
            inbound[callID] = d
            return
        }
        if sendBye {
            var headers = inboundDialogHeaders(d)
            headers.add("CSeq", "\(d.localCSeq + 1) BYE")
            let target = d.invite.contact?.uri.description ?? d.invite.from?.uri.description ?? "sip:invalid"
            startTransaction(.request("BYE", uri: target, headers: headers), to: SIPDestination(address: d.nextHop))
        }
        inbound[callID] = nil
        await d.rtp.close()
        d.call.emit(.ended(reason))
    }
}
