import Testing
@testable import Bridge

/// A closed RTP session lets go of its handlers: they capture the leg that owns the session, and
/// a session holding them kept both alive after every SIP call (found by `make soak`).
@Suite struct RTPSessionLifetimeTests {
    final class Owner: Sendable {}

    @Test func closingASessionReleasesWhatItsHandlersCaptured() async throws {
        let pool = try RTPPortPool(range: 42800...42899)
        let session = try await RTPSession.open(host: "127.0.0.1", pool: pool, cname: "voicebridge@test")
        weak var released: Owner?
        do {
            let owner = Owner()
            released = owner
            session.setHandlers(media: { _ in _ = owner }, dtmf: { _ in _ = owner })
        }
        #expect(released != nil, "held while the session is open")
        await session.close()
        #expect(released == nil, "the session still holds its handlers after close")
    }
}
