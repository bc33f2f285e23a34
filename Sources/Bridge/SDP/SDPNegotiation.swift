import Pipeline

/// The outcome of offer/answer for one audio stream (RFC 3264).
public struct NegotiatedAudio: Sendable, Equatable {
    /// The voice codec both sides use, and the payload type to send it with.
    public var law: G711.Law
    public var payloadType: Int
    /// The peer's telephone-event payload type, when both sides do RFC 4733.
    public var telephoneEventPayloadType: Int?
    public var remoteAddress: String
    public var remotePort: Int
    /// Set when the media is SRTP (SDES keys exchanged in the offer and answer).
    public var srtp: SRTPKeys?
}

/// Offer/answer for PCMU (0), PCMA (8) and telephone-event (dynamic, 101 by default).
public enum SDPNegotiation {
    public static let telephoneEventPayloadType = 101

    /// The offer VoiceBridge sends: PCMU, PCMA and telephone-event, 20 ms packets. With SRTP
    /// `required` the profile is RTP/SAVP; `optional` offers the key on RTP/AVP, so a peer without
    /// SRTP can still answer in plain RTP ("best effort" SDES, as baresip's `mediaenc=srtp` does).
    public static func offer(address: String, port: Int, srtp: SRTPMode = .off, crypto: SDESCrypto? = nil,
                             sessionID: UInt64 = UInt64.random(in: 1...UInt64(Int64.max))) -> SessionDescription {
        var attributes: [(String, String?)] = [
            ("rtpmap", "0 PCMU/8000"), ("rtpmap", "8 PCMA/8000"),
            ("rtpmap", "\(telephoneEventPayloadType) telephone-event/8000"), ("fmtp", "\(telephoneEventPayloadType) 0-16"),
            ("ptime", "20"), ("sendrecv", nil),
        ]
        if srtp != .off, let crypto { attributes.append(("crypto", crypto.attributeValue)) }
        return SessionDescription(
            origin: "VoiceBridge \(sessionID) \(sessionID) IN IP4 \(address)", sessionName: "VoiceBridge", connectionAddress: address,
            media: [.init(port: port, proto: srtp == .required ? "RTP/SAVP" : "RTP/AVP", formats: [0, 8, telephoneEventPayloadType], attributes: attributes)])
    }

    /// Answers an offer: the caller's first format we support, and telephone-event if offered;
    /// SRTP with `crypto` (our fresh key) when the offer carries a key we can use and `srtp` allows.
    /// Nil when nothing matches, or the offer and `srtp` disagree on encryption (the call gets 488).
    public static func answer(to offer: SessionDescription, address: String, port: Int, srtp: SRTPMode = .off, crypto: SDESCrypto? = nil,
                              sessionID: UInt64 = UInt64.random(in: 1...UInt64(Int64.max))) -> (SessionDescription, NegotiatedAudio)? {
        guard let index = offer.media.firstIndex(where: { $0.type == "audio" && $0.port != 0 && ($0.proto.hasPrefix("RTP/AVP") || $0.isSecureProfile) }),
              let remote = offer.address(of: offer.media[index]) else { return nil }
        let media = offer.media[index]
        var keys: SRTPKeys?
        var answerCrypto: SDESCrypto?
        if srtp != .off, let offered = media.usableCrypto, let crypto {
            keys = SRTPKeys(local: crypto.keyAndSalt, remote: offered.keyAndSalt)
            answerCrypto = SDESCrypto(tag: offered.tag, keyAndSalt: crypto.keyAndSalt)   // echo the tag (RFC 4568 §7.1.1)
        }
        if keys == nil, srtp == .required || media.isSecureProfile { return nil }
        var chosen: (law: G711.Law, pt: Int)?
        for pt in media.formats {
            guard let encoding = media.encoding(of: pt), encoding.rate == 8000 else { continue }
            if let law = G711.Law(rawValue: encoding.name.uppercased()) { chosen = (law, pt); break }
        }
        guard let chosen else { return nil }
        let event = media.formats.first { media.encoding(of: $0)?.name.lowercased() == "telephone-event" && media.encoding(of: $0)?.rate == 8000 }

        var formats = [chosen.pt]
        var attributes: [(String, String?)] = [("rtpmap", "\(chosen.pt) \(chosen.law.rawValue)/8000")]
        if let event {
            formats.append(event)
            attributes += [("rtpmap", "\(event) telephone-event/8000"), ("fmtp", "\(event) 0-16")]
        }
        attributes += [("ptime", "20"), (answerDirection(media.direction), nil)]
        if let answerCrypto { attributes.append(("crypto", answerCrypto.attributeValue)) }
        // The answer keeps one m= line per offered stream, in order; streams we do not take get port 0.
        let lines = offer.media.enumerated().map { i, m in
            i == index ? SessionDescription.Media(port: port, proto: keys == nil ? "RTP/AVP" : media.proto, formats: formats, attributes: attributes)
                       : SessionDescription.Media(type: m.type, port: 0, proto: m.proto, formats: m.formats)
        }
        let answer = SessionDescription(origin: "VoiceBridge \(sessionID) \(sessionID) IN IP4 \(address)", sessionName: "VoiceBridge",
                                        connectionAddress: address, media: lines)
        return (answer, NegotiatedAudio(law: chosen.law, payloadType: chosen.pt, telephoneEventPayloadType: event,
                                        remoteAddress: remote, remotePort: media.port, srtp: keys))
    }

    /// Reads the answer to our offer: the first format the peer kept is what we both use. With
    /// `offered` (the key our offer carried) the answer's key is taken when it echoes our tag;
    /// nil when SRTP is `required` and the answer has no such key.
    public static func accept(answer: SessionDescription, offered: SDESCrypto? = nil, srtp: SRTPMode = .off) -> NegotiatedAudio? {
        guard let media = answer.media.first(where: { $0.type == "audio" && $0.port != 0 }), let remote = answer.address(of: media) else { return nil }
        var keys: SRTPKeys?
        if srtp != .off, let offered, let theirs = media.usableCrypto, theirs.tag == offered.tag {
            keys = SRTPKeys(local: offered.keyAndSalt, remote: theirs.keyAndSalt)
        }
        if keys == nil, srtp == .required { return nil }
        for pt in media.formats {
            guard let encoding = media.encoding(of: pt), let law = G711.Law(rawValue: encoding.name.uppercased()) else { continue }
            let event = media.formats.first { media.encoding(of: $0)?.name.lowercased() == "telephone-event" }
            return NegotiatedAudio(law: law, payloadType: pt, telephoneEventPayloadType: event, remoteAddress: remote, remotePort: media.port, srtp: keys)
        }
        return nil
    }

    static func answerDirection(_ offered: String) -> String {
        switch offered {
        case "sendonly": "recvonly"
        case "recvonly": "sendonly"
        case "inactive": "inactive"
        default: "sendrecv"
        }
    }
}
