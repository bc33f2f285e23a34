import Testing
@testable import Bridge

@Suite struct SIPParserTests {
    static let invite = """
    INVITE sip:bob@biloxi.example.com SIP/2.0\r
    Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bKnashds8\r
    v: SIP/2.0/UDP proxy.example.com:5070;branch=z9hG4bK77ef4c2312983.1;received=192.0.2.1\r
    Max-Forwards: 70\r
    To: Bob <sip:bob@biloxi.example.com>\r
    f: "Alice, A." <sip:alice@atlanta.example.com>;tag=1928301774\r
    i: a84b4c76e66710@pc33.atlanta.example.com\r
    CSeq: 314159 INVITE\r
    m: <sip:alice@pc33.atlanta.example.com>\r
    Subject: a long\r
     folded line\r
    c: application/sdp\r
    l: 4\r
    \r
    v=0\r\nEXTRA
    """

    @Test func parsesARequestWithCompactFormsFoldingAndMultipleVias() throws {
        let message = try SIPParser.parse(Array(Self.invite.utf8))
        #expect(message.method == "INVITE" && message.requestURI == "sip:bob@biloxi.example.com")
        #expect(message.headers.values("Via").count == 2)
        #expect(message.topVia?.branch == "z9hG4bKnashds8" && message.topVia?.host == "pc33.atlanta.example.com")
        #expect(message.headers["via"] == message.headers["VIA"])
        #expect(message.from?.displayName == "Alice, A." && message.from?.tag == "1928301774")
        #expect(message.to?.uri.user == "bob" && message.to?.tag == nil)
        #expect(message.callID == "a84b4c76e66710@pc33.atlanta.example.com")
        #expect(message.cseq == CSeq(314159, "INVITE"))
        #expect(message.headers["Subject"] == "a long folded line")
        #expect(message.headers["Content-Type"] == "application/sdp")
        #expect(message.body == Array("v=0\r".utf8), "Content-Length frames the body; extra datagram bytes are dropped")
    }

    @Test func parsesAResponse() throws {
        let text = "SIP/2.0 486 Busy Here\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKx\r\nFrom: <sip:a@b>;tag=1\r\nTo: <sip:c@d>;tag=2\r\nCall-ID: x\r\nCSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n"
        let message = try SIPParser.parse(Array(text.utf8))
        #expect(message.statusCode == 486)
        #expect(message.to?.tag == "2")
    }

    @Test func serializingAndParsingRoundTrips() throws {
        let message = try SIPParser.parse(Array(Self.invite.utf8))
        let again = try SIPParser.parse(message.serialized())
        #expect(again.startLine == message.startLine)
        #expect(again.body == message.body)
        #expect(again.headers["Content-Length"] == "4")
        #expect(again.headers.values("Via") == message.headers.values("Via"))
        #expect(String(decoding: message.serialized(), as: UTF8.self).contains("Call-ID: a84b4c76e66710@pc33.atlanta.example.com\r\n"))
    }

    static func withHeaders(_ headers: String, body: String = "") -> [UInt8] {
        Array("OPTIONS sip:x@127.0.0.1 SIP/2.0\r\n\(headers)\r\n\(body)".utf8)
    }

    static let goodHeaders = "Via: SIP/2.0/UDP 127.0.0.1;branch=z9hG4bK1\r\nFrom: <sip:a@b>;tag=1\r\nTo: <sip:c@d>\r\nCall-ID: 1\r\nCSeq: 1 OPTIONS\r\n"

    @Test(arguments: ["Via", "From", "To", "Call-ID", "CSeq"])
    func aMissingMandatoryHeaderIsAnError(name: String) {
        let headers = Self.goodHeaders.split(separator: "\r\n").filter { !$0.hasPrefix(name + ":") }.map { $0 + "\r\n" }.joined()
        #expect(throws: SIPParser.Failure.missingHeader(name)) { try SIPParser.parse(Self.withHeaders(headers)) }
    }

    @Test func hostileInputGivesTypedErrors() {
        let cases: [([UInt8], SIPParser.Failure)] = [
            ([], .empty),
            (Array(repeating: 65, count: 70_000), .tooLarge(70_000)),
            (Self.withHeaders(Self.goodHeaders + "Content-Length: 10\r\n", body: "abc"), .bodyShorterThanContentLength(declared: 10, actual: 3)),
            (Self.withHeaders(Self.goodHeaders + "Content-Length: -1\r\n"), .invalidContentLength("-1")),
            (Self.withHeaders(Self.goodHeaders + "Content-Length: lots\r\n"), .invalidContentLength("lots")),
            (Self.withHeaders(Self.goodHeaders + "X-Big: " + String(repeating: "a", count: 64 * 1024 - 200) + "\r\n"), .headerTooLong(64 * 1024 - 200 + 7)),
            (Array("OPTIONS sip:x@127.0.0.1 SIP/2.0\r\nVia: a\u{0}b\r\n\r\n".utf8), .containsNUL),
            (Array("OPTIONS sip:x@127.0.0.1 SIP/2.0\r\nX: ".utf8) + [0xFF, 0xFE] + Array("\r\n\r\n".utf8), .invalidUTF8),
            (Array("OPTIONS sip:x@127.0.0.1 SIP/2.0\r\nVia: x".utf8), .missingHeaderEnd),
            (Self.withHeaders(Self.goodHeaders).map { $0 }.replacing(Array("SIP/2.0\r\nVia".utf8), with: Array("SIP/3.0\r\nVia".utf8)), .unsupportedVersion("SIP/3.0")),
            (Array("HELLO\r\n\r\n".utf8), .malformedStartLine("HELLO")),
            (Self.withHeaders(Self.goodHeaders + "Bad Header Line\r\n"), .malformedHeader("Bad Header Line")),
            (Self.withHeaders(Self.goodHeaders.replacing("CSeq: 1 OPTIONS", with: "CSeq: one OPTIONS")), .invalidHeaderValue("CSeq")),
            (Self.withHeaders(Self.goodHeaders.replacing("CSeq: 1 OPTIONS", with: "CSeq: 1 INVITE")), .invalidHeaderValue("CSeq")),
            (Self.withHeaders(Self.goodHeaders.replacing("SIP/2.0/UDP 127.0.0.1", with: "garbage")), .invalidHeaderValue("Via")),
            (Self.withHeaders(Self.goodHeaders + String(repeating: "X-A: b\r\n", count: 200)), .tooManyHeaders),
        ]
        for (bytes, expected) in cases {
            #expect(throws: expected) { try SIPParser.parse(bytes) }
        }
    }

    /// Every prefix and a sample of single-byte corruptions of a valid message: errors, never crashes.
    @Test func truncatedAndCorruptedMessagesNeverCrash() {
        let bytes = Array(Self.invite.utf8)
        var parsed = 0
        for end in 0...bytes.count {
            if (try? SIPParser.parse(Array(bytes[0..<end]))) != nil { parsed += 1 }
        }
        #expect(parsed <= 8, "only prefixes ending inside the body can parse (Content-Length fits)")
        var seed: UInt64 = 1
        for _ in 0..<3000 {
            var copy = bytes
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            copy[Int(seed >> 33) % copy.count] = UInt8(truncatingIfNeeded: seed >> 17)
            _ = try? SIPParser.parse(copy)
        }
    }

    @Test func headerValueTypesParseAndPrint() throws {
        let uri = try #require(SIPURI("sip:+821012345678@gw.example.com:5080;transport=udp"))
        #expect(uri.user == "+821012345678" && uri.host == "gw.example.com" && uri.port == 5080 && uri.parameters["transport"] == "udp")
        #expect(uri.description == "sip:+821012345678@gw.example.com:5080;transport=udp")
        #expect(SIPURI("sip:[::1]:5060")?.port == 5060)
        #expect(SIPURI("http://x") == nil && SIPURI("sip:host:99999") == nil)
        let via = try #require(Via("SIP/2.0/UDP 10.0.0.1:5062;rport=5062;received=1.2.3.4;branch=z9hG4bKabc"))
        #expect(via.port == 5062 && via.branch == "z9hG4bKabc" && via.parameters["received"] == "1.2.3.4")
        let na = try #require(NameAddress("sip:bob@example.com;tag=xyz"))
        #expect(na.tag == "xyz" && na.uri.parameters.items.isEmpty)
        #expect(SIPHeaders.splitList(#""Doe, J" <sip:a@b>, <sip:c@d;x=1,2>, sip:e@f"#).count == 3)
        #expect(NameAddress(displayName: "ABC \"Co\"", uri: uri).description.hasPrefix(#""ABC \"Co\"" <sip:"#))
    }
}

extension Array where Element == UInt8 {
    func replacing(_ target: [UInt8], with replacement: [UInt8]) -> [UInt8] {
        guard let range = self.firstRange(of: target) else { return self }
        var copy = self
        copy.replaceSubrange(range, with: replacement)
        return copy
    }
}

@Suite struct DigestAuthenticationTests {
    /// RFC 2617 §3.5's worked example (qop=auth), the reference every implementation checks against.
    @Test func matchesTheRFC2617Example() throws {
        let challenge = try #require(DigestChallenge(#"Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#))
        let value = challenge.authorization(method: "GET", uri: "/dir/index.html", username: "Mufasa", password: "Circle Of Life", cnonce: "0a4f113b", nonceCount: 1)
        #expect(value.contains(#"response="6629fae49393a05397450978507c4ef1""#))
        #expect(value.contains("nc=00000001") && value.contains("qop=auth") && value.contains(#"opaque="5ccc069c403ebaf9f0171e9517f40e41""#))
    }

    @Test func withoutQopUsesTheRFC2069Form() throws {
        let challenge = try #require(DigestChallenge(#"Digest realm="r", nonce="n""#))
        let value = challenge.authorization(method: "INVITE", uri: "sip:b@h", username: "u", password: "p")
        let expected = DigestChallenge.md5Hex("\(DigestChallenge.md5Hex("u:r:p")):n:\(DigestChallenge.md5Hex("INVITE:sip:b@h"))")
        #expect(value.contains("response=\"\(expected)\"") && !value.contains("qop"))
        #expect(DigestChallenge(#"Digest realm="r", nonce="n", algorithm=SHA-256"#) == nil)
        #expect(DigestChallenge("Basic realm=x") == nil)
    }
}
