import Testing
import Pipeline
@testable import Bridge

@Suite struct SDPTests {
    static let offerText = "v=0\r\no=- 3914400000 3914400000 IN IP4 203.0.113.10\r\ns=-\r\nc=IN IP4 203.0.113.10\r\nt=0 0\r\nm=audio 40000 RTP/AVP 18 8 0 96\r\na=rtpmap:18 G729/8000\r\na=rtpmap:8 PCMA/8000\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:96 telephone-event/8000\r\na=fmtp:96 0-15\r\na=ptime:20\r\na=sendrecv\r\nm=video 40002 RTP/AVP 97\r\n"

    @Test func answersWithTheCallersFirstSupportedCodecAndKeepsTheirEventPayloadType() throws {
        let offer = try SessionDescription(parsing: Array(Self.offerText.utf8))
        #expect(offer.media.count == 2 && offer.media[0].formats == [18, 8, 0, 96])
        let (answer, audio) = try #require(SDPNegotiation.answer(to: offer, address: "127.0.0.1", port: 20000))
        #expect(audio.law == .aLaw && audio.payloadType == 8, "G.729 is skipped, PCMA comes first")
        #expect(audio.telephoneEventPayloadType == 96)
        #expect(audio.remoteAddress == "203.0.113.10" && audio.remotePort == 40000)
        #expect(answer.media.count == 2, "one m= line per offered stream")
        #expect(answer.media[0].formats == [8, 96] && answer.media[0].port == 20000)
        #expect(answer.media[1].port == 0, "the video stream is rejected")
        let reparsed = try SessionDescription(parsing: answer.serialized())
        #expect(reparsed == answer)
    }

    /// A port that is only slashes (found by `make fuzz`: it crashed the parser) is a malformed line.
    @Test func aMediaLineWithoutAPortIsRefusedNotACrash() {
        for port in ["/", "//", "/2", ""] {
            let body = Array("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio \(port) RTP/AVP 0\r\n".utf8)
            #expect(throws: SessionDescription.Failure.self, "m=audio \(port)") { try SessionDescription(parsing: body) }
        }
    }

    @Test func noCommonCodecMeans488() throws {
        let offer = try SessionDescription(parsing: Array("v=0\r\no=- 1 1 IN IP4 1.2.3.4\r\ns=-\r\nc=IN IP4 1.2.3.4\r\nt=0 0\r\nm=audio 4000 RTP/AVP 18 9\r\n".utf8))
        #expect(SDPNegotiation.answer(to: offer, address: "127.0.0.1", port: 20000) == nil)
    }

    @Test func directionsMapAsRFC3264Says() {
        #expect(SDPNegotiation.answerDirection("sendonly") == "recvonly")
        #expect(SDPNegotiation.answerDirection("recvonly") == "sendonly")
        #expect(SDPNegotiation.answerDirection("inactive") == "inactive")
        #expect(SDPNegotiation.answerDirection("sendrecv") == "sendrecv")
    }

    @Test func ourOfferRoundTripsAndItsAnswerIsAccepted() throws {
        let offer = SDPNegotiation.offer(address: "127.0.0.1", port: 20002)
        let parsed = try SessionDescription(parsing: offer.serialized())
        #expect(parsed == offer)
        #expect(parsed.media[0].formats == [0, 8, 101])
        let (answer, _) = try #require(SDPNegotiation.answer(to: parsed, address: "127.0.0.1", port: 30000))
        let audio = try #require(SDPNegotiation.accept(answer: answer))
        #expect(audio.law == .muLaw && audio.payloadType == 0 && audio.telephoneEventPayloadType == 101 && audio.remotePort == 30000)
    }

    @Test func malformedSDPIsATypedError() {
        #expect(throws: SessionDescription.Failure.missingVersion) { try SessionDescription(parsing: Array("o=x\r\nm=audio 1 RTP/AVP 0\r\n".utf8)) }
        #expect(throws: SessionDescription.Failure.noMedia) { try SessionDescription(parsing: Array("v=0\r\n".utf8)) }
        #expect(throws: SessionDescription.Failure.notUTF8) { try SessionDescription(parsing: [0x76, 0x3D, 0xFF]) }
        #expect(throws: SessionDescription.Failure.self) { try SessionDescription(parsing: Array("v=0\r\nm=audio port RTP/AVP 0\r\n".utf8)) }
        #expect(throws: SessionDescription.Failure.self) { try SessionDescription(parsing: Array("v=0\r\ngarbage\r\n".utf8)) }
    }
}
