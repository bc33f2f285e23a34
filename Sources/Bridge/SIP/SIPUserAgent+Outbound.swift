import NIOCore

/// An outbound call's dialog state (RFC 3261 §12, §13).
struct OutboundDialog {
    enum Phase { case calling, confirmed }

    let call: SIPCall
    let rtp: RTPSession
    var invite: SIPMessage
    let destination: SIPDestination
    let requestURI: String
    /// The host the INVITE was sent to (credentials answer only the configured one's challenges).
    let gatewayHost: String
    var remoteTag: String?
    var remoteTarget: String?
    var routeSet: [String] = []
    var cseq: UInt32 = 1
    var phase = Phase.calling
    var sawTrying = false
    var sawRinging = false
    var provisional = false
    var pendingCancel: SIPCallFailure?
    var cancelSentAt: ContinuousClock.Instant?
    var authTried = false
    let ringDeadline: ContinuousClock.Instant
    var ack: [UInt8]?
    var ackDestination: SocketAddress?
    /// The SDES key our offer carried (SRTP on).
    let offeredCrypto: SDESCrypto?
}

extension SIPUserAgent {
    /// Sends an INVITE with an SDP offer (PCMU, PCMA, telephone-event) through `gateway`.
    public func placeCall(from caller: String, displayName: String? = nil, to callee: String, gateway: SIPURI,
                          outboundCallID: String? = nil, ringTimeout: Duration? = nil, extraHeaders: [(String, String)] = []) async throws -> SIPCall {
        let destination = try self.destination(gateway)
        let rtp = try await openRTP()
        let callID = randomToken(20) + "@" + configuration.host
        let call = SIPCall(callID: callID, direction: .outbound, localNumber: caller, remoteNumber: callee, outboundCallID: outboundCallID, userAgent: self)
        call.attach(rtp)
        let requestURI = SIPURI(user: callee, host: gateway.host, port: gateway.port).description
        var from = NameAddress(displayName: displayName, uri: SIPURI(user: caller, host: configuration.host, port: localPort))
        from.tag = randomToken(10)
        var headers = SIPHeaders()
        headers.add("Via", newVia())
        headers.add("Max-Forwards", "70")
        headers.add("From", from.description)
        headers.add("To", "<\(requestURI)>")
        headers.add("Call-ID", callID)
        headers.add("CSeq", "1 INVITE")
        headers.add("Contact", contact)
        headers.add("User-Agent", configuration.product)
        headers.add("Allow", Self.allowed)
        if let outboundCallID { headers.add("X-Outbound-Call-ID", outboundCallID) }
        for (name, value) in extraHeaders { headers.add(name, value) }
        headers.add("Content-Type", "application/sdp")
        let crypto = configuration.srtp == .off ? nil : SDESCrypto.fresh()
        let offer = SDPNegotiation.offer(address: configuration.host, port: rtp.localPort, srtp: configuration.srtp, crypto: crypto)
        let invite = SIPMessage.request("INVITE", uri: requestURI, headers: headers, body: offer.serialized())
        outbound[callID] = OutboundDialog(call: call, rtp: rtp, invite: invite, destination: destination, requestURI: requestURI,
                                          gatewayHost: gateway.host, ringDeadline: clock.now.advanced(by: ringTimeout ?? configuration.ringTimeout), offeredCrypto: crypto)
        startTransaction(invite, to: destination)
        return call
    }

    func handleResponse(_ response: SIPMessage, from: SocketAddress) async {
        guard let code = response.statusCode, let branch = response.topVia?.branch, let cseq = response.cseq, let callID = response.callID else { return }
        let key = branch + cseq.method
        if var tx = transactions[key] {
            if tx.completedUntil != nil {   // a retransmitted final response: ACK it again
                if let ack = tx.ack { socket?.send(ack, to: tx.destination.address) }
                return
            }
            if code < 200 {
                tx.provisional(now: clock.now)
                transactions[key] = tx
            } else if cseq.method == "INVITE", code >= 300,
                      let invite = outbound[callID]?.invite ?? (try? SIPParser.parse(tx.request)) {
                // ACK even when the dialog is already gone (a 487 after shutdown's CANCEL).
                let ack = nonSuccessACK(invite: invite, response: response)
                socket?.send(ack, to: tx.destination.address)
                tx.complete(now: clock.now, ack: ack)
                transactions[key] = tx
            } else {
                transactions[key] = nil
            }
        } else if !(cseq.method == "INVITE" && (200..<300).contains(code)) {
            return   // a stray response; 2xx retransmissions after the transaction ended still need an ACK
        }
        if cseq.method == "INVITE", outbound[callID] != nil { await inviteResponse(response, code: code, callID: callID, from: from) }
        if cseq.method == "REFER" { referResponse(code, callID: callID) }
    }

    private func inviteResponse(_ response: SIPMessage, code: Int, callID: String, from: SocketAddress) async {
        guard var d = outbound[callID] else { return }
        switch code {
        case 100:
            if !d.sawTrying { d.sawTrying = true; d.call.emit(.trying) }
            outbound[callID] = d
        case 101..<200:
            d.provisional = true
            if let tag = response.to?.tag { d.remoteTag = tag }
            var early = false
            if !response.body.isEmpty, let sdp = try? SessionDescription(parsing: response.body),
               let audio = SDPNegotiation.accept(answer: sdp, offered: d.offeredCrypto, srtp: configuration.srtp), (try? apply(audio, to: d.rtp)) != nil {
                early = true
            }
            if !d.sawRinging || early { d.call.emit(.ringing(earlyMedia: early)) }
            d.sawRinging = true
            outbound[callID] = d
            if d.pendingCancel != nil, d.cancelSentAt == nil { sendCancel(callID) }
        case 200..<300:
            if d.phase == .confirmed {   // retransmitted 2xx: our ACK was lost
                if let ack = d.ack, let to = d.ackDestination { socket?.send(ack, to: to) }
                return
            }
            d.remoteTag = response.to?.tag
            d.remoteTarget = response.contact?.uri.description ?? d.requestURI
            d.routeSet = response.headers.values("Record-Route").reversed()
            d.phase = .confirmed
            let ack = successACK(d, cseq: response.cseq?.number ?? d.cseq)
            let target = nextHop(routeSet: d.routeSet, remoteTarget: d.remoteTarget, fallback: from)
            d.ack = ack.serialized()
            d.ackDestination = target
            send(ack, to: target)
            outbound[callID] = d
            let answer = (try? SessionDescription(parsing: response.body)).flatMap {
                SDPNegotiation.accept(answer: $0, offered: d.offeredCrypto, srtp: configuration.srtp)
            }
            if let reason = d.pendingCancel {   // answered after we cancelled: ACK, then BYE (RFC 3261 §9.1)
                sendBye(callID)
                await failOutbound(callID, reason)
            } else if let answer, (try? apply(answer, to: d.rtp)) != nil {
                d.call.emit(.answered)
            } else {
                sendBye(callID)
                await failOutbound(callID, .failed(488))
            }
        case 401, 407:
            let header = response.headers[code == 401 ? "WWW-Authenticate" : "Proxy-Authenticate"]
            if let allowed = configuration.credentialsHost, allowed.lowercased() != d.gatewayHost.lowercased() {
                logger.warning("a host other than the gateway asked for the SIP credentials; they were not sent",
                               metadata: ["host": "\(d.gatewayHost.oneLine)", "gateway": "\(allowed)"])
                await failOutbound(callID, .credentialsWithheld(code))
                return
            }
            guard !d.authTried, let user = configuration.username, let password = configuration.password,
                  let challenge = header.flatMap(DigestChallenge.init) else {
                await failOutbound(callID, .authenticationFailed(code))
                return
            }
            d.authTried = true
            d.cseq += 1
            var invite = d.invite
            invite.headers.set("Via", newVia())
            invite.headers.set("CSeq", "\(d.cseq) INVITE")
            invite.headers.set(code == 401 ? "Authorization" : "Proxy-Authorization",
                               challenge.authorization(method: "INVITE", uri: d.requestURI, username: user, password: password))
            d.invite = invite
            outbound[callID] = d
            startTransaction(invite, to: d.destination)
        case 300..<400: await failOutbound(callID, .redirected(code, response.contact?.uri.description))
        case 486, 600: await failOutbound(callID, .busy)
        case 603: await failOutbound(callID, .rejected)
        case 408, 480: await failOutbound(callID, .noAnswer)
        case 487: await failOutbound(callID, d.pendingCancel ?? .cancelled)
        default: await failOutbound(callID, .failed(code))
        }
    }


    func failOutbound(_ callID: String, _ failure: SIPCallFailure) async {
        guard let d = outbound.removeValue(forKey: callID) else { return }
        for (key, tx) in transactions where tx.callID == callID && tx.kind == .invite { transactions[key]?.abandon(now: clock.now) }
        await d.rtp.close()
        d.call.emit(.failed(failure))
    }

    /// Cancels before answer (only once a provisional response came), hangs up after.
    func cancel(callID: String, reason: SIPCallFailure) async {
        if var d = outbound[callID] {
            guard d.phase == .calling else { await hangUp(callID: callID); return }
            guard d.pendingCancel == nil else { return }
            d.pendingCancel = reason
            outbound[callID] = d
            if d.provisional { sendCancel(callID) }
        } else if inbound[callID] != nil {
            await hangUp(callID: callID)
        }
    }

    func hangUp(callID: String, reason: SIPCallEnd = .localHangup) async {
        if let d = outbound[callID] {
            if d.phase == .calling { await cancel(callID: callID, reason: .cancelled); return }
            await endOutbound(callID, reason: reason)
        } else if inbound[callID] != nil {
            await endInbound(callID, reason: reason, sendBye: true)
        }
    }

    func endOutbound(_ callID: String, reason: SIPCallEnd) async {
        guard let d = outbound[callID] else { return }
        if d.phase == .calling {
            if d.provisional, d.cancelSentAt == nil { outbound[callID]?.pendingCancel = .cancelled; sendCancel(callID) }
            await failOutbound(callID, .cancelled)
            return
        }
        sendBye(callID)
        outbound[callID] = nil
        await d.rtp.close()
        d.call.emit(.ended(reason))
    }

    func outboundTimers(_ callID: String, now: ContinuousClock.Instant) async {
        guard let d = outbound[callID], d.phase == .calling else { return }
        if d.pendingCancel == nil, now >= d.ringDeadline {
            await cancel(callID: callID, reason: .noAnswer)   // ring timeout → CANCEL → no_answer
        } else if let sent = d.cancelSentAt, now >= sent.advanced(by: ClientTransaction.timeout) {
            await failOutbound(callID, d.pendingCancel ?? .cancelled)   // no 487 in 64·T1: give up
        }
    }

    /// CANCEL: same Request-URI, Call-ID, From, To and CSeq number as the INVITE; one Via with its branch.
    private func sendCancel(_ callID: String) {
        guard var d = outbound[callID], let via = d.invite.headers.values("Via").first else { return }
        var headers = SIPHeaders()
        headers.add("Via", via)
        headers.add("Max-Forwards", "70")
        headers.add("From", d.invite.headers["From"] ?? "")
        headers.add("To", d.invite.headers["To"] ?? "")
        headers.add("Call-ID", callID)
        headers.add("CSeq", "\(d.cseq) CANCEL")
        for route in d.invite.headers.values("Route") { headers.add("Route", route) }
        startTransaction(.request("CANCEL", uri: d.requestURI, headers: headers), to: d.destination)
        d.cancelSentAt = clock.now
        outbound[callID] = d
    }

    /// ACK for a non-2xx final response: part of the INVITE transaction (same branch, To from the response).
    private func nonSuccessACK(invite: SIPMessage, response: SIPMessage) -> [UInt8] {
        var headers = SIPHeaders()
        headers.add("Via", invite.headers.values("Via").first ?? "")
        headers.add("Max-Forwards", "70")
        headers.add("From", invite.headers["From"] ?? "")
        headers.add("To", response.headers["To"] ?? "")
        headers.add("Call-ID", invite.callID ?? "")
        headers.add("CSeq", "\(invite.cseq?.number ?? 1) ACK")
        for route in invite.headers.values("Route") { headers.add("Route", route) }
        return SIPMessage.request("ACK", uri: invite.requestURI ?? "", headers: headers).serialized()
    }

    /// ACK for a 2xx: its own transaction, to the remote target, along the route set.
    private func successACK(_ d: OutboundDialog, cseq: UInt32) -> SIPMessage {
        var headers = inDialogHeaders(d)
        headers.add("CSeq", "\(cseq) ACK")
        return .request("ACK", uri: d.remoteTarget ?? d.requestURI, headers: headers)
    }

    private func sendBye(_ callID: String) {
        guard var d = outbound[callID] else { return }
        d.cseq += 1
        var headers = inDialogHeaders(d)
        headers.add("CSeq", "\(d.cseq) BYE")
        outbound[callID] = d
        let bye = SIPMessage.request("BYE", uri: d.remoteTarget ?? d.requestURI, headers: headers)
        startTransaction(bye, to: d.ackDestination.map(SIPDestination.init(address:)) ?? d.destination)
    }

    func inDialogHeaders(_ d: OutboundDialog) -> SIPHeaders {
        var headers = SIPHeaders()
        headers.add("Via", newVia())
        headers.add("Max-Forwards", "70")
        headers.add("From", d.invite.headers["From"] ?? "")
        var to = NameAddress(uri: SIPURI(d.requestURI) ?? SIPURI(host: "invalid"))
        to.tag = d.remoteTag
        headers.add("To", to.description)
        headers.add("Call-ID", d.call.callID)
        for route in d.routeSet { headers.add("Route", route) }
        return headers
    }
}
