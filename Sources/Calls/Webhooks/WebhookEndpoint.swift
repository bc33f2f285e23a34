import Foundation
import Tools

/// Where signed event notifications go: a URL, the endpoint's own secret, and the events it wants.
/// Endpoints come from the configuration file (`webhooks.endpoints.<name>`, read-only over the API)
/// or from `/api/webhooks`.
public struct WebhookEndpoint: Sendable, Equatable, Codable {
    public var id: String
    public var url: String
    /// `whsec_` + base64 of the HMAC key (Standard Webhooks).
    public var secret: String
    /// Event types delivered here; empty: every event.
    public var events: [String]
    public var description: String
    public var enabled: Bool
    public var fromConfig: Bool
    /// Why the server turned the endpoint off (a 410 Gone answer); nil when the operator did, or it is on.
    public var disabledReason: String?
    public var createdAt: Date

    public init(id: String = WebhookEndpoint.newID(), url: String, secret: String = WebhookSignature.newSecret(), events: [String] = [],
                description: String = "", enabled: Bool = true, fromConfig: Bool = false, createdAt: Date = Date()) {
        self.id = id
        self.url = url
        self.secret = secret
        self.events = events
        self.description = description
        self.enabled = enabled
        self.fromConfig = fromConfig
        self.createdAt = createdAt
    }

    /// Whether the endpoint subscribed to `type` (whether it is on is the store's query).
    public func wants(_ type: WebhookEventType) -> Bool {
        events.isEmpty || events.contains(type.rawValue)
    }

    public static func newID() -> String {
        "wh_" + String(format: "%08x", UInt32.random(in: .min ... .max))
    }

    /// What is wrong with an endpoint's URL, secret or event list, in words an operator can act on; nil: nothing.
    public static func problem(url: String, secret: String?, events: [String]) -> String? {
        if url.count > TextLimits.url { return "url must be at most \(TextLimits.url) characters" }
        if let problem = OutboundURL.problem(url) { return "url \(problem), got '\(url)'" }
        if let secret, WebhookSignature.key(fromSecret: secret) == nil {
            return "secret must be whsec_ followed by the base64 of 24 to 64 random bytes"
        }
        if let unknown = events.first(where: { WebhookEventType(rawValue: $0) == nil }) {
            return "unknown event '\(unknown)'; known: \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", "))"
        }
        return nil
    }
}
