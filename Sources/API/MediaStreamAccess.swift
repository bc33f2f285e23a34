import Bridge
import Calls
import Crypto
import Foundation

/// Who may open a media-stream WebSocket. A `start` runs the engine (paid, with keys) and stores a
/// call, so every dialect is authenticated or closed:
///
/// - Twilio with `twilio.auth_token`: the upgrade's `X-Twilio-Signature` (checked by the caller);
/// - any dialect with `media_streams.token`: `?token=` in the URL the operator gave the provider;
/// - neither: open only on a server without API tokens, which listens on loopback only;
/// - and only the dialects in `media_streams.dialects`, when that lists any.
///
/// Only a signed Twilio upgrade may name the outbound call it carries (`outbound_id`): anyone
/// else could take over a call waiting for its stream.
struct MediaStreamAccess: Sendable {
    enum Decision: Equatable {
        /// Accepted; `signed` when Twilio signed the upgrade.
        case accept(signed: Bool)
        case refuse(String)
    }

    let dialects: Set<MediaStreamDialect>
    private let tokenDigest: SHA256Digest?
    let twilioSigns: Bool
    let loopbackOnly: Bool

    init(config: VoiceBridgeConfig) {
        dialects = Set(config.mediaStreams.dialects.isEmpty ? MediaStreamDialect.providers : config.mediaStreams.dialects)
        tokenDigest = config.mediaStreams.token.map { SHA256.hash(data: Data($0.utf8)) }
        twilioSigns = config.twilio.authToken != nil
        loopbackOnly = config.api.tokens.isEmpty
    }

    /// `presentedToken` is the request's `?token=`; the Twilio signature, when required, is checked
    /// before this is asked.
    func decide(_ dialect: MediaStreamDialect, presentedToken: String?) -> Decision {
        guard dialects.contains(dialect) else { return .refuse("the \(dialect.rawValue) stream endpoint is switched off (media_streams.dialects)") }
        if dialect == .twilio, twilioSigns { return .accept(signed: true) }
        if let tokenDigest {
            // Digests compared: constant time in the token's content and length.
            guard let presentedToken, SHA256.hash(data: Data(presentedToken.utf8)) == tokenDigest else {
                return .refuse("a \(dialect.rawValue) stream needs ?token= with media_streams.token")
            }
            return .accept(signed: false)
        }
        return loopbackOnly ? .accept(signed: false) : .refuse("no way to authenticate \(dialect.rawValue) streams: set media_streams.token")
    }
}
