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
}

/// Offer/answer for PCMU (0), PCMA (8) and telephone-event (dynamic, 101 by default).
public enum SDPNegotiation {
    public static let telephoneEventPayloadType = 101

    /// The offer VoiceBridge sends: PCMU, PCMA and telephone-event, 20 ms packets.
    public static func offer(address: String, port: Int, sessionID: UInt64 = UInt64.random(in: 1...UInt64(Int64.max))) -> SessionDescription {
        SessionDescription(
            origin: "VoiceBridge \(sessionID) \(sessionID) IN IP4 \(address)", sessionName: "VoiceBridge", connectionAddress: address,
            media: [.init(port: port, formats: [0, 8, telephoneEventPayloadType], attributes: [
                ("rtpmap", "0 PCMU/8000"), ("rtpmap", "8 PCMA/8000"),
                ("rtpmap", "\(telephoneEventPayloadType) telephone-event/8000"), ("fmtp", "\(telephoneEventPayloadType) 0-16"),
                ("ptime", "20"), ("sendrecv", nil),
            ])])
    }

    /// Answers an offer: the caller's first format we support, and telephone-event if offered.
    /// Nil when nothing matches (the call gets 488).
    public static func answer(to offer: SessionDescription, address: String, port: Int, sessionID: UInt64 = UInt64.random(in: 1...UInt64(Int64.max))) -> (SessionDescription, NegotiatedAudio)? {
        guard let index = offer.media.firstIndex(where: { $0.type == "audio" && $0.port != 0 && $0.proto.hasPrefix("RTP/AVP") }),
              let remote = offer.address(of: offer.media[index]) else { return nil }
        let media = offer.media[index]
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
        // The answer keeps one m= line per offered stream, in order; streams we do not take get port 0.
        let lines = offer.media.enumerated().map { i, m in
            i == index ? SessionDescription.Media(port: port, formats: formats, attributes: attributes)
                       : SessionDescription.Media(type: m.type, port: 0, proto: m.proto, formats: m.formats)
        }
        let answer = SessionDescription(origin: "VoiceBridge \(sessionID) \(sessionID) IN IP4 \(address)", sessionName: "VoiceBridge",
                                        connectionAddress: address, media: lines)
        return (answer, NegotiatedAudio(law: chosen.law, payloadType: chosen.pt, telephoneEventPayloadType: event,
                                        remoteAddress: remote, remotePort: media.port))
    }

    /// Reads the answer to our offer: the first format the peer kept is what we both use.
    public static func accept(answer: SessionDescription) -> NegotiatedAudio? {
        guard let media = answer.media.first(where: { $0.type == "audio" && $0.port != 0 }), let remote = answer.address(of: media) else { return nil }
        for pt in media.formats {
            guard let encoding = media.encoding(of: pt), let law = G711.Law(rawValue: encoding.name.uppercased()) else { continue }
            let event = media.formats.first { media.encoding(of: $0)?.name.lowercased() == "telephone-event" }
            return NegotiatedAudio(law: law, payloadType: pt, telephoneEventPayloadType: event, remoteAddress: remote, remotePort: media.port)
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
