import Calls
import Egress
import Tools
import Foundation
import Hummingbird

/// `/api/webhooks`: endpoints that receive signed notices when calls and campaigns end, and every
/// delivery with its attempts (replayable). Endpoints from the configuration file are listed but
/// changed only there.
extension VoiceBridgeServer {
    func addWebhookRoutes(to api: RouterGroup<BasicRequestContext>) {
        let webhooks = api.group("webhooks")
        webhooks.get { _, _ -> WebhookList in
            WebhookList(items: try await self.store.webhooks.endpoints().map { WebhookView($0, showingSecret: false) })
        }
        webhooks.post { request, _ -> EditedResponse<WebhookView> in
            let body = try await Self.decodeJSONBody(request, as: WebhookBody.self)
            guard let url = body.url else { throw ProblemDetails(.unprocessableContent, detail: "url is required", errors: [.init(field: "url", message: "is required")]) }
            try Self.check(url: url, secret: body.secret, events: body.events ?? [], description: body.description, egress: self.config.egressPolicy)
            let endpoint = WebhookEndpoint(url: url, secret: body.secret ?? WebhookSignature.newSecret(), events: body.events ?? [],
                                           description: body.description ?? "", enabled: body.enabled ?? true)
            try await self.store.webhooks.create(endpoint)
            return EditedResponse(status: .created, headers: [.location: "/api/webhooks/\(endpoint.id)"], response: WebhookView(endpoint, showingSecret: true))
        }
        // The secret is shown once, in the answer that made it (or to whoever just set it): never
        // read back, so a leaked read-only view of the API does not let anyone forge deliveries.
        webhooks.get(":id") { _, context -> WebhookView in
            WebhookView(try await self.endpoint(context), showingSecret: false)
        }
        webhooks.patch(":id") { request, context -> WebhookView in
            let current = try await self.endpoint(context)
            let body = try await Self.decodeJSONBody(request, as: WebhookBody.self)
            if body.url != nil || body.events != nil || body.secret != nil {
                try Self.check(url: body.url ?? current.url, secret: body.secret, events: body.events ?? current.events, egress: self.config.egressPolicy)
            }
            try Self.check(description: body.description)
            let updated = try await Self.storingWebhook {
                try await self.store.webhooks.update(id: current.id) { e in
                    if let url = body.url { e.url = url }
                    if let secret = body.secret { e.secret = secret }
                    if let events = body.events { e.events = events }
                    if let description = body.description { e.description = description }
                    if let enabled = body.enabled { e.enabled = enabled }
                }
            }
            return WebhookView(updated, showingSecret: false)
        }
        webhooks.delete(":id") { _, context -> Response in
            let id = context.parameters.get("id") ?? ""
            guard try await Self.storingWebhook({ try await self.store.webhooks.delete(id: id) }) else { throw ProblemDetails(.notFound, detail: "no webhook endpoint \(id)") }
            return Response(status: .noContent)
        }
        webhooks.get(":id/deliveries") { request, context -> DeliveryList in
            let endpoint = try await self.endpoint(context)
            let state = try request.uri.queryParameters.get("state").map { raw in
                guard let state = WebhookDelivery.State(rawValue: raw) else {
                    throw ProblemDetails(.unprocessableContent, detail: "state must be pending, delivered or failed")
                }
                return state
            }
            let limit = min(max(Int(request.uri.queryParameters.get("limit") ?? "") ?? 50, 1), 500)
            let offset = max(Int(request.uri.queryParameters.get("offset") ?? "") ?? 0, 0)
            let deliveries = try await self.store.webhooks.deliveries(endpointID: endpoint.id, state: state, limit: limit, offset: offset)
            return DeliveryList(items: try await self.deliveryViews(deliveries))
        }
        webhooks.post(":id/deliveries/:delivery/replay") { _, context -> EditedResponse<DeliveryView> in
            let endpoint = try await self.endpoint(context)
            let id = context.parameters.get("delivery") ?? ""
            guard let delivery = try await self.store.webhooks.delivery(id: id), delivery.endpointId == endpoint.id else {
                throw ProblemDetails(.notFound, detail: "endpoint \(endpoint.id) has no delivery \(id)")
            }
            guard endpoint.enabled else { throw ProblemDetails(.conflict, detail: "endpoint \(endpoint.id) is turned off; turn it on to replay") }
            let replayed = try await self.store.webhooks.replay(id: id)
            return EditedResponse(status: .accepted, response: try await self.deliveryViews([replayed])[0])
        }
    }

    func endpoint(_ context: BasicRequestContext) async throws -> WebhookEndpoint {
        let id = context.parameters.get("id") ?? ""
        guard let endpoint = try await store.webhooks.endpoint(id: id) else { throw ProblemDetails(.notFound, detail: "no webhook endpoint \(id)") }
        return endpoint
    }

    func deliveryViews(_ deliveries: [WebhookDelivery]) async throws -> [DeliveryView] {
        let attempts = try await store.webhooks.attempts(deliveryIDs: deliveries.map(\.id))
        return deliveries.map { DeliveryView($0, attempts: attempts[$0.id] ?? []) }
    }

    /// A URL whose host is a literal address the egress policy refuses is refused here, with the
    /// reason, rather than stored to fail every delivery; a name is checked when delivered (what it
    /// resolves to may change, and a refusal then says nothing of the address).
    static func check(url: String, secret: String?, events: [String], description: String? = nil, egress: EgressPolicy) throws {
        if let problem = WebhookEndpoint.problem(url: url, secret: secret, events: events) {
            throw ProblemDetails(.unprocessableContent, detail: problem)
        }
        if let parsed = try? OutboundURL(url), parsed.hostIsAddress, let address = IPAddressBytes(parsing: parsed.host), !egress.permits(address) {
            throw ProblemDetails(.unprocessableContent, detail: "url: \(parsed.host) is not an allowed destination: it is a loopback, private, link-local or reserved address (egress.allow lists the blocks the server may reach)")
        }
        try check(description: description)
    }

    static func check(description: String?) throws {
        if let description, description.count > TextLimits.webhookDescription {
            throw ProblemDetails(.unprocessableContent, detail: "description must be at most \(TextLimits.webhookDescription) characters")
        }
    }

    static func storingWebhook<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let failure as WebhookStore.Failure {
            switch failure {
            case .fromConfig: throw ProblemDetails(.conflict, detail: failure.description)
            case .notFound, .deliveryNotFound: throw ProblemDetails(.notFound, detail: failure.description)
            }
        }
    }
}

struct WebhookBody: Decodable {
    var url: String?
    var secret: String?
    var events: [String]?
    var description: String?
    var enabled: Bool?
}

struct WebhookView: ResponseEncodable {
    var id: String
    var url: String
    /// Shown when an endpoint is made and when it is fetched alone; never in the list.
    var secret: String?
    var events: [String]
    var description: String
    var enabled: Bool
    var disabledReason: String?
    var fromConfig: Bool
    var createdAt: Date

    init(_ e: WebhookEndpoint, showingSecret: Bool) {
        id = e.id; url = e.url; secret = showingSecret ? e.secret : nil; events = e.events; description = e.description
        enabled = e.enabled; disabledReason = e.disabledReason; fromConfig = e.fromConfig; createdAt = e.createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, url, secret, events, description, enabled
        case disabledReason = "disabled_reason", fromConfig = "from_config", createdAt = "created_at"
    }
}

struct WebhookList: ResponseEncodable {
    var items: [WebhookView]
}

struct DeliveryView: ResponseEncodable {
    var id: String
    var endpointId: String
    var eventType: String
    var outboundId: String?
    var campaignId: String?
    var state: String
    var attemptCount: Int
    var nextAttemptAt: Date?
    var lastStatus: Int?
    var lastError: String?
    var createdAt: Date
    var deliveredAt: Date?
    var attempts: [Attempt]

    struct Attempt: Codable {
        var at: Date
        var status: Int?
        var error: String?
        var durationMs: Int

        enum CodingKeys: String, CodingKey { case at, status, error, durationMs = "duration_ms" }
    }

    init(_ d: WebhookDelivery, attempts: [WebhookAttempt]) {
        id = d.id; endpointId = d.endpointId; eventType = d.eventType; outboundId = d.outboundId; campaignId = d.campaignId
        state = d.state.rawValue; attemptCount = d.attemptCount; nextAttemptAt = d.state == .pending ? d.nextAttemptAt : nil
        lastStatus = d.lastStatus; lastError = d.lastError; createdAt = d.createdAt; deliveredAt = d.deliveredAt
        self.attempts = attempts.map { Attempt(at: $0.attemptedAt, status: $0.status, error: $0.error, durationMs: $0.durationMs) }
    }

    enum CodingKeys: String, CodingKey {
        case id, state, attempts
        case endpointId = "endpoint_id", eventType = "event_type", outboundId = "outbound_id", campaignId = "campaign_id"
        case attemptCount = "attempt_count", nextAttemptAt = "next_attempt_at", lastStatus = "last_status", lastError = "last_error"
        case createdAt = "created_at", deliveredAt = "delivered_at"
    }
}

struct DeliveryList: ResponseEncodable {
    var items: [DeliveryView]
}
