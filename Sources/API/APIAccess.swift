import Crypto
import Foundation
import Calls
import HTTPTypes
import Hummingbird

/// Who may use `/api`: with tokens configured, a request needs `Authorization: Bearer <token>`
/// (browsers opening the event WebSocket, which cannot set headers, may pass `?access_token=` —
/// on a WebSocket upgrade only: anywhere else a token in the URL would end up in history, proxy
/// logs and Referer headers, so the dashboard fetches recordings and exports with the header).
/// With none configured the server only listens on loopback (the config refuses anything else),
/// so every local client is trusted.
struct APIAccess: Sendable {
    let tokens: Set<String>

    /// The caller's identity for rate limiting: its token, or "local" without auth.
    func identity(of request: Request) throws -> String {
        guard !tokens.isEmpty else { return "local" }
        var presented: String?
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            presented = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        } else if let query = request.uri.queryParameters.get("access_token") {
            guard Self.isWebSocketUpgrade(request) else {
                throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: #"Bearer realm="voicebridge""#],
                                message: "access_token in the URL is accepted on WebSocket upgrades only; send Authorization: Bearer")
            }
            presented = query
        }
        guard let presented, tokens.contains(presented) else {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: #"Bearer realm="voicebridge""#],
                            message: presented == nil ? "a bearer token is required" : "the bearer token is not valid")
        }
        return presented
    }

    /// Who an identity is, for a call's events: never the token itself, a fingerprint of it.
    static func label(_ identity: String) -> String {
        identity == "local" ? "local" : "api token " + SHA256.hash(data: Data(identity.utf8)).prefix(4).hexDigits
    }

    static func isWebSocketUpgrade(_ request: Request) -> Bool {
        request.headers[HTTPField.Name("Upgrade")!]?.lowercased() == "websocket"
    }
}

/// Checks `APIAccess` for every route it wraps.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: APIAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        _ = try access.identity(of: request)
        return try await next(request, context)
    }
}

/// Seed 000 §11: call creations per identity per minute, over a sliding 60 s window kept in the
/// database, so nodes sharing it share the limit.
struct CreationRateLimiter: Sendable {
    let perMinute: Int
    let store: CallStore

    /// Records an attempt; throws 429 (with Retry-After) when the identity is over its limit.
    func admit(_ identity: String) async throws {
        if let wait = try await store.admitCreation(identity: identity, perMinute: perMinute) {
            let seconds = max(1, Int(wait.rounded(.up)))
            throw HTTPError(.tooManyRequests, headers: [.retryAfter: "\(seconds)"],
                            message: "at most \(perMinute) calls may be created per minute; retry in \(seconds) s")
        }
    }
}
