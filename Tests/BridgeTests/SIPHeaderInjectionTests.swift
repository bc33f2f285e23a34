import Testing
@testable import Bridge

/// No value can add a SIP header line: the parser refuses bare line breaks, the writer never emits one.
@Suite struct SIPHeaderInjectionTests {
    @Test(arguments: ["Subject: hi\nP-Asserted-Identity: <sip:ceo@x>", "Subject: hi\rX: y"])
    func aBareLineBreakInsideAHeaderIsAMalformedMessage(header: String) {
        let message = "OPTIONS sip:1@x SIP/2.0\r\nVia: SIP/2.0/UDP a;branch=z9hG4bK1\r\nFrom: <sip:a@x>;tag=1\r\nTo: <sip:1@x>\r\n"
            + "Call-ID: c1\r\nCSeq: 1 OPTIONS\r\n\(header)\r\n\r\n"
        #expect(throws: SIPParser.Failure.self) { try SIPParser.parse(Array(message.utf8)) }
    }

    @Test func theWriterTurnsControlCharactersIntoSpaces() throws {
        var headers = SIPHeaders()
        headers.add("From", NameAddress(displayName: "Evil\r\nP-Asserted-Identity: <sip:ceo@x>", uri: SIPURI(user: "1", host: "x")).description)
        headers.add("Subject", "a\u{7F}b\tc")
        let text = String(decoding: SIPMessage.request("INVITE", uri: "sip:2@x\r\nX: y", headers: headers).serialized(), as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.first == "INVITE sip:2@x  X: y SIP/2.0")
        #expect(lines.contains(#"From: "Evil  P-Asserted-Identity: <sip:ceo@x>" <sip:1@x>"#))
        #expect(lines.contains("Subject: a b\tc"), "HTAB is legal SIP whitespace")
        #expect(!lines.contains { $0.hasPrefix("P-Asserted-Identity") || $0.hasPrefix("X:") })
    }
}
