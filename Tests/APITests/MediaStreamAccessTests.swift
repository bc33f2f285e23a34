import Bridge
import Testing
@testable import API
@testable import Calls

/// Every media-stream endpoint is authenticated or closed once the server listens beyond loopback.
@Suite struct MediaStreamAccessTests {
    static func access(tokens: [String] = ["0123456789abcdef"], streamToken: String? = nil, twilioToken: String? = nil,
                       dialects: [MediaStreamDialect] = []) -> MediaStreamAccess {
        var config = VoiceBridgeConfig()
        config.api.tokens = tokens
        config.mediaStreams.token = streamToken
        config.mediaStreams.dialects = dialects
        config.twilio.authToken = twilioToken
        return MediaStreamAccess(config: config)
    }

    @Test func withAPITokensAndNoStreamSecretOnlySignedTwilioIsOpen() {
        let access = Self.access(twilioToken: "tw")
        #expect(access.decide(.twilio, presentedToken: nil) == .accept(signed: true))
        for dialect in [MediaStreamDialect.telnyx, .plivo, .exotel] {
            guard case .refuse = access.decide(dialect, presentedToken: nil) else { Issue.record("\(dialect) open"); continue }
        }
        guard case .refuse = Self.access().decide(.twilio, presentedToken: nil) else { Issue.record("unsigned Twilio open"); return }
    }

    @Test func theStreamSecretOpensEveryDialectButIsNotASignature() {
        let access = Self.access(streamToken: "stream-secret-0123456789")
        for dialect in MediaStreamDialect.providers {
            #expect(access.decide(dialect, presentedToken: "stream-secret-0123456789") == .accept(signed: false), "\(dialect)")
            guard case .refuse = access.decide(dialect, presentedToken: "stream-secret-012345678") else { Issue.record("\(dialect): a wrong token"); continue }
            guard case .refuse = access.decide(dialect, presentedToken: nil) else { Issue.record("\(dialect): no token"); continue }
        }
    }

    @Test func aLoopbackOnlyServerKeepsStreamsOpenForLocalTestingUnlessSwitchedOff() {
        #expect(Self.access(tokens: []).decide(.exotel, presentedToken: nil) == .accept(signed: false))
        guard case .refuse = Self.access(tokens: [], dialects: [.twilio]).decide(.exotel, presentedToken: nil) else {
            Issue.record("a dialect left out of media_streams.dialects is open"); return
        }
        #expect(Self.access(tokens: [], dialects: [.twilio]).decide(.twilio, presentedToken: nil) == .accept(signed: false))
    }
}
