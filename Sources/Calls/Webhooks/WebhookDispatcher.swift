import AsyncHTTPClient
import Crypto
import Egress
import Foundation
import Logging
import NIOCore
import Tracing

/// Drains the webhook outbox for the life of the server: claims due deliveries (at most
/// `concurrency` in flight), POSTs each body signed as Standard Webhooks says, and stores every
/// attempt with the retry policy's verdict. It keeps nothing in memory that is not in the
/// database, so a restart picks up where it stopped (an attempt cut off by the crash is sent again:
/// receivers drop duplicates by `webhook-id`).
public final class WebhookDispatcher: Sendable {
    public struct Settings: Sendable, Equatable {
        public var policy = WebhookRetryPolicy()
        /// How long an attempt may take before it counts as a timeout (and is retried).
        public var timeout: TimeInterval = 15
        public var concurrency = 4
        /// Where receivers may be (a delivery to a refused address fails and is retried like any).
        public var egress = EgressPolicy()

        public init() {}
    }

    let store: CallStore
    let settings: Settings
    let logger: Logger
    /// Where the spans of this work go (`telemetry.otlp_endpoint`'s exporter); nil: none are made.
    let tracer: (any Tracer)?
    /// Read after a write, when a retry falls due, or twice a minute (`OutboxDrain`).
    private let gate = OutboxReadGate()

    public init(store: CallStore, settings: Settings, logger: Logger, tracer: (any Tracer)? = nil) {
        self.store = store
        self.settings = settings
        self.logger = logger
        self.tracer = tracer
    }

    public func run() async {
        await OutboxDrain<(WebhookDelivery, WebhookEndpoint)>(concurrency: settings.concurrency, gate: gate).run(
            on: store,
            claim: { try await self.store.webhooks.claimDue(limit: $0, lease: self.settings.timeout + 30) },
            earliestDue: { try await self.store.webhooks.nextAttempt() },
            failed: { self.logger.warning("could not read the webhook outbox", metadata: ["error": "\($0)"]) },
            send: { claimed in
                let (delivery, endpoint) = claimed
                await self.store.continuingTrace(ofCall: delivery.outboundId, tracer: self.tracer, as: "webhook \(delivery.eventType)",
                                                 attributes: ["voicebridge.webhook.attempt": .int64(Int64(delivery.attemptCount + 1))]) {
                    await self.deliver(delivery, to: endpoint)
                }
            })
    }

    /// One attempt. Cancelled by shutdown, it stores no attempt and gives its claim back:
    /// the next start sends it again at once.
    func deliver(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint) async {
        let started = Date()
        var status: Int?
        var retryAfter: String?
        var failure: String?
        do {
            // The answer's body is not needed; it is read (up to 64 KB) to end the exchange cleanly.
            let response = try await EgressHTTPClient(policy: settings.egress).send(request(for: delivery, to: endpoint, at: started),
                                                                                     timeout: .milliseconds(Int64(settings.timeout * 1000)), bodyLimit: 64 << 10)
            status = response.status
            retryAfter = response.headers.first(name: "Retry-After")
        } catch {
            if Task.isCancelled { return await store.giveBackClaim(in: .webhooks, key: delivery.id, logger: logger) }
            failure = Self.describe(error)
        }
        let attempt = WebhookAttempt(deliveryId: delivery.id, attemptedAt: started, status: status, error: failure,
                                     durationMs: Int(Date().timeIntervalSince(started) * 1000))
        let verdict = settings.policy.verdict(attempt: delivery.attemptCount + 1, status: status, retryAfter: retryAfter)
        do { try await store.webhooks.record(attempt, verdict: verdict) } catch {
            logger.error("could not store a webhook attempt", metadata: ["delivery": "\(delivery.id)", "error": "\(error)"])
        }
        if case .retry(let after) = verdict { gate.due(in: after) }   // read the outbox again when the retry falls due
        if verdict != .delivered {
            logger.info("webhook attempt failed", metadata: ["delivery": "\(delivery.id)", "endpoint": "\(endpoint.id)",
                                                              "status": "\(status.map(String.init) ?? failure ?? "?")", "verdict": "\(verdict)"])
        }
    }

    func request(for delivery: WebhookDelivery, to endpoint: WebhookEndpoint, at now: Date) -> HTTPClientRequest {
        let timestamp = Int(now.timeIntervalSince1970)
        let body = Array(delivery.payload.utf8)
        var request = HTTPClientRequest(url: endpoint.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "VoiceBridge/\(VoiceBridgeVersion.current)")
        request.headers.add(name: "webhook-id", value: delivery.id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        if let key = WebhookSignature.key(fromSecret: endpoint.secret) {
            request.headers.add(name: "webhook-signature", value: WebhookSignature.sign(id: delivery.id, timestamp: timestamp, body: body, key: key))
        }
        request.body = .bytes(ByteBuffer(bytes: body))
        return request
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout { return "timeout" }
        return String(describing: error).prefix(300).description
    }
}
