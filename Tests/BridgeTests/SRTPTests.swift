import Foundation
import NIOCore
import Synchronization
import Testing
@testable import Bridge

/// SDES keys in SDP and SRTP on the wire through libsrtp2.
@Suite struct SRTPTests {
    static let key = "EBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywt"   // 30 bytes: 0x10…0x2d

    @Test func readsTheOneSuiteWeSpeakAndRefusesWhatWeCannotHonour() throws {
        let crypto = try #require(SDESCrypto(attribute: "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)"))
        #expect(crypto.tag == 1 && crypto.keyAndSalt == Array(0x10...0x2d))
        #expect(SDESCrypto(attribute: crypto.attributeValue) == crypto, "what we write reads back")
        #expect(SDESCrypto(attribute: "7 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)|2^31")?.tag == 7, "a lifetime is allowed")
        for refused in [
            "1 AES_CM_128_HMAC_SHA1_32 inline:\(Self.key)",                 // another suite
            "1 AES_CM_128_HMAC_SHA1_80 inline:EBESExQVFhcYGRobHB0e",        // 15 bytes
            "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)|2^31|1:4",        // an MKI
            "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)|1:4",             // an MKI without a lifetime
            "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key) UNENCRYPTED_SRTP", // would send audio in the clear
            "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key);inline:\(Self.key)",
            "1234567890 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)",        // tag longer than 9 digits
            "1 AES_CM_128_HMAC_SHA1_80 \(Self.key)", "x AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)", "",
        ] {
            #expect(SDESCrypto(attribute: refused) == nil, "\(refused)")
        }
        #expect(SDESCrypto.fresh().keyAndSalt != SDESCrypto.fresh().keyAndSalt, "every call gets its own key")
    }

    static func offer(proto: String, crypto: String?) throws -> SessionDescription {
        var text = "v=0\r\no=- 1 1 IN IP4 192.0.2.7\r\ns=-\r\nc=IN IP4 192.0.2.7\r\nt=0 0\r\nm=audio 40000 \(proto) 0 101\r\n"
        text += "a=rtpmap:101 telephone-event/8000\r\n"
        if let crypto { text += "a=crypto:\(crypto)\r\n" }
        return try SessionDescription(parsing: Array(text.utf8))
    }

    @Test func answersAnSRTPOfferWithItsTagAndOurOwnKey() throws {
        let ours = SDESCrypto.fresh()
        for mode in [SRTPMode.optional, .required] {
            let offer = try Self.offer(proto: "RTP/SAVP", crypto: "3 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)")
            let (answer, audio) = try #require(SDPNegotiation.answer(to: offer, address: "127.0.0.1", port: 20000, srtp: mode, crypto: ours))
            #expect(answer.media[0].proto == "RTP/SAVP")
            #expect(answer.media[0].attribute("crypto") == ["3 AES_CM_128_HMAC_SHA1_80 inline:\(Data(ours.keyAndSalt).base64EncodedString())"])
            #expect(audio.srtp == SRTPKeys(local: ours.keyAndSalt, remote: Array(0x10...0x2d)))
        }
    }

    @Test func encryptionPolicyDecidesWhatIsAnsweredAnd488sTheRest() throws {
        let ours = SDESCrypto.fresh()
        let plain = try Self.offer(proto: "RTP/AVP", crypto: nil)
        let secure = try Self.offer(proto: "RTP/SAVP", crypto: "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)")
        let bestEffort = try Self.offer(proto: "RTP/AVP", crypto: "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)")
        let unusable = try Self.offer(proto: "RTP/SAVP", crypto: "1 AES_CM_128_HMAC_SHA1_32 inline:\(Self.key)")
        func answer(_ offer: SessionDescription, _ mode: SRTPMode) -> NegotiatedAudio? {
            SDPNegotiation.answer(to: offer, address: "127.0.0.1", port: 20000, srtp: mode, crypto: ours)?.1
        }
        #expect(answer(plain, .off)?.srtp == nil && answer(plain, .optional)?.srtp == nil)
        #expect(answer(plain, .required) == nil, "required: a plain offer gets 488")
        #expect(answer(secure, .off) == nil, "RTP/SAVP cannot be answered without SRTP")
        #expect(answer(bestEffort, .off).map { $0.srtp == nil } == true, "off: the key on RTP/AVP is ignored, plain RTP")
        #expect(answer(bestEffort, .optional)?.srtp != nil)
        #expect(answer(unusable, .optional) == nil && answer(unusable, .required) == nil)
    }

    @Test func ourOfferAndTheAnswerWeAccept() throws {
        let ours = SDESCrypto.fresh(tag: 1)
        let required = SDPNegotiation.offer(address: "127.0.0.1", port: 20000, srtp: .required, crypto: ours)
        #expect(required.media[0].proto == "RTP/SAVP" && required.media[0].attribute("crypto") == [ours.attributeValue])
        #expect(SDPNegotiation.offer(address: "127.0.0.1", port: 20000, srtp: .optional, crypto: ours).media[0].proto == "RTP/AVP")
        #expect(SDPNegotiation.offer(address: "127.0.0.1", port: 20000, srtp: .off, crypto: ours).media[0].attribute("crypto").isEmpty)

        let echoed = try Self.offer(proto: "RTP/SAVP", crypto: "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)")
        let wrongTag = try Self.offer(proto: "RTP/SAVP", crypto: "2 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)")
        let plain = try Self.offer(proto: "RTP/AVP", crypto: nil)
        #expect(SDPNegotiation.accept(answer: echoed, offered: ours, srtp: .required)?.srtp == SRTPKeys(local: ours.keyAndSalt, remote: Array(0x10...0x2d)))
        #expect(SDPNegotiation.accept(answer: wrongTag, offered: ours, srtp: .required) == nil, "the answer must echo our tag")
        #expect(SDPNegotiation.accept(answer: plain, offered: ours, srtp: .required) == nil)
        #expect(SDPNegotiation.accept(answer: plain, offered: ours, srtp: .optional).map { $0.srtp == nil } == true, "optional falls back to RTP")
    }

    @Test func libsrtpProtectsAndOpensAndRefusesWrongKeysReplaysAndPlainPackets() throws {
        let a = SDESCrypto.fresh().keyAndSalt, b = SDESCrypto.fresh().keyAndSalt
        let alice = try SRTPSession(keys: SRTPKeys(local: a, remote: b))
        let bob = try SRTPSession(keys: SRTPKeys(local: b, remote: a))
        let payload = (0..<160).map { UInt8($0 & 0xff) }
        let packet = RTPPacket(marker: true, payloadType: 0, sequenceNumber: 7, timestamp: 160, ssrc: 0x1234_5678, payload: payload).serialized()
        let sealed = try #require(alice.protect(packet))
        #expect(sealed.count == packet.count + 10, "AES_CM_128_HMAC_SHA1_80 appends a 10-byte tag")
        #expect(Array(sealed[12..<172]) != payload, "the payload is encrypted")
        #expect(Array(sealed[0..<12]) == Array(packet[0..<12]), "the header stays readable")
        #expect(bob.unprotect(sealed) == packet)
        #expect(bob.unprotect(sealed) == nil, "a replayed packet is refused")
        #expect(bob.unprotect(packet) == nil, "a plain packet does not verify")
        let eve = try SRTPSession(keys: SRTPKeys(local: SDESCrypto.fresh().keyAndSalt, remote: a))
        let forged = try #require(eve.protect(RTPPacket(marker: false, payloadType: 0, sequenceNumber: 8, timestamp: 320, ssrc: 0x1234_5678, payload: payload).serialized()))
        #expect(bob.unprotect(forged) == nil, "a packet under another key does not verify")
        let report = RTCPPacket.compound(ssrc: 0x1234_5678, sender: nil, reports: [], cname: "alice")
        let sealedReport = try #require(alice.protectRTCP(report))
        #expect(sealedReport.count == report.count + 14, "E flag and index, then the tag")
        #expect(bob.unprotectRTCP(sealedReport) == report)
        #expect(throws: SRTPSession.Failure.self) { try SRTPSession(keys: SRTPKeys(local: [1, 2, 3], remote: b)) }
    }
}
