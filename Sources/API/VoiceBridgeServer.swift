import Bridge
import Calls
import Foundation
import Knowledge
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import NIOCore
import Logging
import Prometheus
import ServiceLifecycle

/// Builds the HTTP application: routes, static dashboard files, and the services that share its life.
public struct VoiceBridgeServer: Sendable {
    public let config: VoiceBridgeConfig
    public let store: CallStore
    public let status: RuntimeStatus
    public let logger: Logger
    /// The SIP side; nil in tests that only exercise HTTP.
    public let calls: CallSystem?
    /// Where `/metrics` reads from; the call system reports into it (`metricsFactory`).
    public let metricsRegistry: PrometheusCollectorRegistry
    let access: APIAccess
    let boundary: BrowserBoundary
    let streamAccess: MediaStreamAccess
    let limiter: CreationRateLimiter
    let stageMetrics = StageMetricsExporter()
    /// The cooperative pool's heartbeat and the database's last state, for `/healthz`.
    public let health: HealthMonitor
    /// The knowledge base `/api/knowledge` uploads into and searches: the call system's, so
    /// calls and the API share one embedding model and vector index.
    public let knowledge: KnowledgeBase

    public init(config: VoiceBridgeConfig, store: CallStore, status: RuntimeStatus = RuntimeStatus(), logger: Logger, calls: CallSystem? = nil,
                metricsRegistry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), knowledge: KnowledgeBase? = nil) {
        self.knowledge = knowledge ?? calls?.knowledge ?? KnowledgeBase(store: store.knowledge, embedder: nil)
        self.config = config
        self.store = store
        self.status = status
        self.logger = logger
        self.calls = calls
        self.metricsRegistry = metricsRegistry
        self.access = APIAccess(tokens: Set(config.api.tokens))
        self.boundary = BrowserBoundary(config: config)
        self.streamAccess = MediaStreamAccess(config: config)
        self.limiter = CreationRateLimiter(perMinute: config.api.callCreationsPerMinute, store: store)
        self.health = HealthMonitor(store: store)
    }

    /// What the call system should report through so that `/metrics` shows it.
    public static func callMetrics(registry: PrometheusCollectorRegistry) -> CallMetrics {
        CallMetrics(factory: MetricsRoute.factory(registry: registry))
    }

    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: BrowserBoundaryMiddleware(boundary: boundary))
        router.add(middleware: FileMiddleware(config.http.webRoot, searchForIndexHtml: true, logger: logger))
        // Served on the event loop by `HealthEndpointHandler`; this route answers where that
        // handler is not in the pipeline (the in-process test client, a pipelined request).
        router.get("healthz") { _, _ -> EditedResponse<HealthReport> in
            let (report, status) = healthReport(databaseOK: await store.isHealthy())
            return EditedResponse(status: status, response: report)
        }
        addTwilioRoutes(to: router)
        addTwilioCarrierRoutes(to: router)
        let api = router.group("api").add(middleware: ProblemMiddleware()).add(middleware: BearerAuthMiddleware(access: access))
        addOutboundRoutes(to: api, limiter: limiter, access: access)
        addDoNotCallRoutes(to: api)
        addAudioSocketRoutes(to: api)
        addKnowledgeRoutes(to: api)
        addKnowledgeQuestionRoutes(to: api)
        addTemplateRoutes(to: api)
        addTestRunRoutes(to: api)
        addCampaignRoutes(to: api)
        addStatisticsRoutes(to: api)
        addWebhookRoutes(to: api)
        // WebSocket routes answer a plain GET with what it takes to use them.
        for path in WebSocketEndpoint.all.map(\.path) + ["api/outbound/{id}/listen"] {
            router.get(RouterPath(path)) { request, _ -> Response in
                ProblemDetails(.upgradeRequired, detail: "\(request.uri.path) is a WebSocket: send an Upgrade: websocket request").response(headers: [.upgrade: "websocket"])
            }
        }
        api.get("**") { request, _ -> Response in throw ProblemDetails(.notFound, detail: "no API route \(request.uri.path)") }
        router.group("metrics").add(middleware: BearerAuthMiddleware(access: access)).get { _, _ in
            try await MetricsRoute(registry: metricsRegistry, stages: stageMetrics).render(store: store, calls: calls)
        }
        router.get("openapi.yaml") { _, _ -> Response in
            guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"), let data = FileManager.default.contents(atPath: url.path) else {
                throw HTTPError(.notFound)
            }
            return Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        return router
    }

    /// Whether a request passes the browser boundary (Host, Origin) — `/healthz` is answered on
    /// the event loop only then; otherwise the router's middleware refuses it as any other route.
    func answersHere(_ head: HTTPRequest) -> Bool {
        boundary.problem(authority: head.authority, origin: head.headerFields[.origin]) == nil
    }

    /// `/healthz`'s answer: 503 when the database is unavailable or the cooperative pool stalled.
    /// Synchronous, so the event loop can build it with no task.
    func healthReport(databaseOK: Bool?) -> (HealthReport, HTTPResponse.Status) {
        let stalled = health.poolStalledSeconds
        let databaseOK = databaseOK ?? true   // not asked yet: the store opened at start-up
        let report = HealthReport(
            status: stalled != nil ? "stalled" : databaseOK ? "ok" : "degraded",
            version: VoiceBridgeVersion.current,
            database: databaseOK ? "ok" : "unavailable",
            sipListening: status.sipListening,
            engineMode: config.engine.mode.rawValue,
            media: calls.map { MediaTickReport(legs: $0.pacedLegs, statistics: $0.mediaTickStatistics) },
            cooperativePool: stalled == nil ? "ok" : "stalled",
            poolStalledSeconds: stalled.map { ($0 * 10).rounded() / 10 }
        )
        return (report, databaseOK && stalled == nil ? .ok : .serviceUnavailable)
    }

    /// The application with its companion services. Shutdown runs in reverse order: the HTTP server
    /// stops taking requests first, then live calls are ended (BYE), then the store is closed last.
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let connections = ConnectionTable(maxTotal: config.http.maxConnections, maxPerAddress: config.http.maxConnectionsPerAddress,
                                          metrics: MetricsRoute.factory(registry: metricsRegistry))
        let headerTimeout = TimeAmount.seconds(Int64(config.http.headerTimeoutSeconds))
        let minimumBodyRate = config.http.minBodyBytesPerSecond
        let http1 = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(additionalChannelHandlers: [HTTPRequestProgress(), HealthEndpointHandler(server: self)], idleTimeout: .seconds(Int64(config.http.idleTimeoutSeconds))))
        let server = HTTPServerBuilder { responder in
            GuardedChildChannel(base: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: http1) { head, channel, _ in
                self.shouldUpgrade(head, channel: channel)
            }) { HTTPConnectionGuard(table: connections, headerTimeout: headerTimeout, minimumBodyBytesPerSecond: minimumBodyRate) }
        }
        var app = Application(
            router: router(),
            server: server,
            configuration: .init(address: .hostname(config.http.host, port: config.http.port), serverName: "VoiceBridge"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        app.addServices(StoreCloser(store: store, logger: logger))
        if let calls { app.addServices(CallSystemService(system: calls, logger: logger)) }
        app.addServices(health)   // added last, stopped first: it asks the store
        return app
    }
}

/// Keeps the store open for the life of the server and closes it after everything else stopped.
struct StoreCloser: Service {
    let store: CallStore
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        try await store.close()
        logger.info("store closed", metadata: ["path": "\(store.path)"])
    }
}
