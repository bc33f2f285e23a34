import Testing
@testable import Calls

/// TwiML attributes are XML-escaped, the stream URL's host included.
@Suite struct TwiMLEscapingTests {
    @Test func theStreamURLAndParametersAreEscaped() {
        let twiml = TwiML.connectStream(publicBase: #"http://a"><Hangup/><x y=""#, parameters: [("outbound_id", #"1"/><Hangup/>"#)])
        #expect(!twiml.contains("<Hangup/>"))
        #expect(twiml.contains(#"url="ws://a&quot;&gt;&lt;Hangup/&gt;&lt;x y=&quot;/twilio/stream""#))
    }
}
