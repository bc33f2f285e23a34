import Egress
import Foundation

extension WebhookDispatcher.Settings {
    public init(_ config: VoiceBridgeConfig.Webhooks, egress: EgressPolicy) {
        self.init()
        self.egress = egress
        policy = WebhookRetryPolicy(schedule: config.retrySchedule)
        timeout = config.timeoutSeconds
        concurrency = config.concurrency
    }
}

extension VoiceBridgeConfig.Webhooks {
    /// The configuration file's endpoints as the store keeps them (each one's name is its id).
    public var storedEndpoints: [WebhookEndpoint] {
        endpoints.map { WebhookEndpoint(id: $0.name, url: $0.url, secret: $0.secret, events: $0.events, fromConfig: true) }
    }
}
