import Calls
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle

/// Builds the HTTP application: routes, static dashboard files, and the services that share its life.
public struct VoiceBridgeServer: Sendable {
    public let config: VoiceBridgeConfig
    public let store: CallStore
    public let status: RuntimeStatus
    public let logger: Logger
    /// The SIP side; nil in tests that only exercise HTTP.
    public let calls: CallSystem?

    public init(config: VoiceBridgeConfig, store: CallStore, status: RuntimeStatus = RuntimeStatus(), logger: Logger, calls: CallSystem? = nil) {
        self.config = config
        self.store = store
        self.status = status
        self.logger = logger
        self.calls = calls
    }

    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: FileMiddleware(config.http.webRoot, searchForIndexHtml: true, logger: logger))
        router.get("healthz") { _, _ -> EditedResponse<HealthReport> in
            let databaseOK = store.isHealthy()
            let report = HealthReport(
                status: databaseOK ? "ok" : "degraded",
                version: VoiceBridgeVersion.current,
                database: databaseOK ? "ok" : "unavailable",
                sipListening: status.sipListening,
                engineMode: config.engine.mode.rawValue,
                media: calls.map { MediaTickReport(legs: $0.scheduler.registeredCount, statistics: $0.scheduler.statistics) }
            )
            return EditedResponse(status: databaseOK ? .ok : .serviceUnavailable, response: report)
        }
        addTwilioRoutes(to: router)
        return router
    }

    /// The application with its companion services. Shutdown runs in reverse order: the HTTP server
    /// stops taking requests first, then live calls are ended (BYE), then the store is closed last.
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        var app = Application(
            router: router(),
            server: .http1WebSocketUpgrade(webSocketRouter: webSocketRouter()),
            configuration: .init(address: .hostname(config.http.host, port: config.http.port), serverName: "VoiceBridge"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        app.addServices(StoreCloser(store: store, logger: logger))
        if let calls { app.addServices(CallSystemService(system: calls, logger: logger)) }
        return app
    }
}

/// Keeps the store open for the life of the server and closes it after everything else stopped.
struct StoreCloser: Service {
    let store: CallStore
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        try store.close()
        logger.info("store closed", metadata: ["path": "\(store.path)"])
    }
}
