import NIOCore

/// What a blind transfer came to (RFC 3515): the transferee's INVITE to the target, as its NOTIFYs
/// report it, or the transferee's refusal of the REFER itself.
public enum SIPTransferOutcome: Sendable, Equatable {
    /// The target answered (a 2xx sipfrag): the transferee is talking to them.
    case answered
    /// The transferee tried and the target did not answer: 486 busy, 480, 603, … (0: no final NOTIFY in time).
    case failed(Int)
    /// The transferee would not transfer: 405/501 (no REFER), 403/603 (policy), 481; 0: no answer to the REFER.
    case refused(Int)
}

extension SIPTransferOutcome {
    /// The outcome `progress` comes to: its first refusal or final status; when it ends without
    /// one, `.failed(0)` if the REFER was accepted, else `.refused(0)`. A stream finished (or a
    /// reader cancelled) with progress still buffered reads that progress first.
    init(reading progress: AsyncStream<SIPTransferProgress>) async {
        var accepted = false
        for await update in progress {
            switch update {
            case .accepted: accepted = true
            case .refused(let code): self = .refused(code); return
            case .status(let code) where code >= 200: self = code < 300 ? .answered : .failed(code); return
            case .status: accepted = true
            }
        }
        self = accepted ? .failed(0) : .refused(0)
    }
}

/// Progress of a REFER, from its response and the NOTIFYs that follow it.
enum SIPTransferProgress: Sendable, Equatable {
    case accepted
    case refused(Int)
    /// A sipfrag status line: 1xx progress, then the final one.
    case status(Int)
}

extension SIPUserAgent {
    /// Sends a REFER in the call's dialog with `Refer-To: <target>` and `Referred-By` naming us.
    /// False when the call has no confirmed dialog.
    func refer(callID: String, target: String) -> Bool {
        var headers = SIPHeaders()
        let uri: String
        let destination: SIPDestination
        let local: String
        if var d = outbound[callID], d.phase == .confirmed {
            d.cseq += 1
            headers = inDialogHeaders(d)
            headers.add("CSeq", "\(d.cseq) REFER")
            uri = d.remoteTarget ?? d.requestURI
            destination = d.ackDestination.map(SIPDestination.init(address:)) ?? d.destination
            local = d.invite.from?.uri.description ?? "sip:voicebridge@\(configuration.host):\(localPort)"
            outbound[callID] = d
        } else if var d = inbound[callID] {
            d.localCSeq += 1
            headers = inboundDialogHeaders(d)
            headers.add("CSeq", "\(d.localCSeq) REFER")
            uri = d.invite.contact?.uri.description ?? d.invite.from?.uri.description ?? "sip:invalid"
            destination = SIPDestination(address: d.nextHop)
            local = d.invite.to?.uri.description ?? "sip:voicebridge@\(configuration.host):\(localPort)"
            inbound[callID] = d
        } else {
            return false
        }
        headers.add("Contact", contact)
        headers.add("Refer-To", "<\(target)>")
        headers.add("Referred-By", "<\(local)>")
        headers.add("User-Agent", configuration.product)
        startTransaction(.request("REFER", uri: uri, headers: headers), to: destination)
        return true
    }

    /// The final response to our REFER: 2xx accepts (NOTIFYs follow), anything else refuses.
    func referResponse(_ code: Int, callID: String) {
        guard code >= 200 else { return }
        dialogCall(callID)?.transferProgress(code < 300 ? .accepted : .refused(code))
    }

    /// A NOTIFY in one of our dialogs: 200, and a `refer` event's sipfrag status goes to the call.
    func handleNotify(_ notify: SIPMessage, from: SocketAddress) {
        guard let callID = notify.callID, let call = dialogCall(callID) else {
            respond(response(481, to: notify, toTag: nil), to: notify, at: from)
            return
        }
        respond(response(200, to: notify, toTag: nil), to: notify, at: from)
        let event = (notify.headers["Event"] ?? notify.headers["o"] ?? "").lowercased()
        guard event.hasPrefix("refer"), let code = Self.sipfragStatus(notify.body) else { return }
        call.transferProgress(.status(code))
    }

    /// The status code of a `message/sipfrag` body's first line (`SIP/2.0 200 OK`).
    static func sipfragStatus(_ body: [UInt8]) -> Int? {
        let line = String(decoding: body.prefix(64), as: UTF8.self).split(whereSeparator: \.isNewline).first ?? ""
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("SIP/"), let code = Int(parts[1]), (100...699).contains(code) else { return nil }
        return code
    }

    func dialogCall(_ callID: String) -> SIPCall? { outbound[callID]?.call ?? inbound[callID]?.call }

    /// In-dialog request headers of an answered inbound call: From is us (the INVITE's To with our tag).
    func inboundDialogHeaders(_ d: InboundDialog) -> SIPHeaders {
        var headers = SIPHeaders()
        headers.add("Via", newVia())
        headers.add("Max-Forwards", "70")
        var local = d.invite.to
        local?.tag = d.localTag
        headers.add("From", local?.description ?? "")
        headers.add("To", d.invite.headers["From"] ?? "")
        headers.add("Call-ID", d.call.callID)
        for route in d.routeSet { headers.add("Route", route) }
        return headers
    }
}
