import Bridge
import Dialogue
import Egress
import Foundation
import Knowledge
import Logging
import NIOCore
import NIOPosix
import Pipeline
import Realtime
import Simulation
import Tools
import Tracing

/// Everything that makes calls, assembled from the configuration: the SIP user agent, the media
/// ticks (one per event loop; SIP legs pace on the one that owns the RTP sockets), the engine
/// factory, the call manager, and — when no gateway is configured — the built-in simulated callee.
public final class CallSystem: Sendable {
    public struct StartupError: Error, CustomStringConvertible {
        public let description: String
    }

    public let manager: CallManager
    public let userAgent: SIPUserAgent
    public let callee: SimulatedCallee?
    public let sipPort: Int
    /// The media tick of the loop that owns the RTP sockets (SIP legs pace on it).
    public let scheduler: PacerScheduler<[UInt8]>
    let mediaLoop: any EventLoop
    /// One media tick per event loop of the server, each run by its loop's own timers, so a
    /// WebSocket stream paces on the loop that owns its socket (writes without a hop) and the
    /// tick work is spread over the loops. The RTP loop's entry is `scheduler`.
    let loopSchedulers: LoopSchedulers
    /// A media tick per event loop, by its loop.
    typealias LoopSchedulers = [(loop: any EventLoop, scheduler: PacerScheduler<[UInt8]>)]

    /// Delivers the webhook outbox.
    public let webhooks: WebhookDispatcher
    /// What calls search (and the API uploads into).
    public let knowledge: KnowledgeBase
    /// Sends ended calls' results to their `on_end` tools.
    public let afterCallTools: AfterCallToolDispatcher
    /// Analyses completed calls whose template asks for it.
    public let analyses: CallAnalysisDispatcher
    /// Asterisk's AudioSocket connections, when `audiosocket.listen` is set.
    let audioSocket: AudioSocketServer?
    /// The UUIDs the dialplan announced for AudioSocket calls, when `audiosocket.listen` is set.
    public let audioSocketBindings: AudioSocketBindings?
    /// `audiosocket.require_binding`.
    let requireAudioSocketBinding: Bool

    private init(manager: CallManager, userAgent: SIPUserAgent, callee: SimulatedCallee?, sipPort: Int,
                 scheduler: PacerScheduler<[UInt8]>, mediaLoop: any EventLoop, loopSchedulers: LoopSchedulers,
                 webhooks: WebhookDispatcher, knowledge: KnowledgeBase, afterCallTools: AfterCallToolDispatcher, analyses: CallAnalysisDispatcher,
                 audioSocket: AudioSocketServer?, requireAudioSocketBinding: Bool) {
        self.manager = manager
        self.analyses = analyses
        self.afterCallTools = afterCallTools
        self.knowledge = knowledge
        self.webhooks = webhooks
        self.userAgent = userAgent
        self.callee = callee
        self.sipPort = sipPort
        self.scheduler = scheduler
        self.mediaLoop = mediaLoop
        self.loopSchedulers = loopSchedulers
        self.audioSocket = audioSocket
        self.audioSocketBindings = audioSocket == nil ? nil : AudioSocketBindings(clock: manager.settings.clock)
        self.requireAudioSocketBinding = requireAudioSocketBinding
    }

    /// A media tick per event loop of the server; `mediaLoop`'s is `scheduler`.
    static func loopSchedulers(mediaLoop: any EventLoop, scheduler: PacerScheduler<[UInt8]>) -> LoopSchedulers {
        MultiThreadedEventLoopGroup.singleton.makeIterator().map { loop in
            (loop, loop === mediaLoop ? scheduler : PacerScheduler<[UInt8]>())
        }
    }

    /// The media tick that runs on `loop` (for a stream whose socket that loop owns).
    public func scheduler(for loop: any EventLoop) -> PacerScheduler<[UInt8]> {
        Self.scheduler(for: loop, in: loopSchedulers) ?? scheduler
    }

    static func scheduler(for loop: any EventLoop, in schedulers: LoopSchedulers) -> PacerScheduler<[UInt8]>? {
        schedulers.first { $0.loop === loop }?.scheduler
    }

    /// The port AudioSocket connections are taken on, when they are.
    public var audioSocketPort: Int? { audioSocket?.port }

    /// Legs paced by all the media ticks.
    public var pacedLegs: Int { loopSchedulers.reduce(0) { $0 + $1.scheduler.registeredCount } }

    /// The media ticks' statistics together: late ticks and frames summed, the worst lateness.
    public var mediaTickStatistics: TickStatistics {
        loopSchedulers.reduce(into: scheduler.statistics) { total, entry in
            if entry.scheduler !== scheduler { total.include(entry.scheduler.statistics) }
        }
    }

    /// The operator's tools go out through the egress policy, with the configured secrets (then
    /// `VOICEBRIDGE_SECRET_*` from the environment); every call is counted in `/metrics`.
    static func toolRunner(config: VoiceBridgeConfig, metrics: CallMetrics) -> ToolRunner {
        ToolRunner(transport: EgressToolTransport(policy: config.egressPolicy), secrets: config.toolSecrets, observe: metrics.toolCalled)
    }

    /// Binds the SIP socket (and the simulated callee's). Call `run()` afterwards.
    /// `tracer`: where each call's spans go (`telemetry.otlp_endpoint`'s exporter); nil: none are made.
    public static func start(config: VoiceBridgeConfig, store: CallStore, logger: Logger, metrics: CallMetrics = .none,
                             tracer: (any Tracer)? = nil) async throws -> CallSystem {
        let knowledge = KnowledgeBase(store: store.knowledge, embedder: try KnowledgeBase.embedder(for: config, logger: logger))
        let tools = toolRunner(config: config, metrics: metrics)
        let recognizer = try sharedRecognizer(for: config, logger: logger)
        // The knowledge base's embedding model also weighs a phone menu's options by meaning.
        let engines = try engines(for: config.engine, egress: config.egressPolicy, tools: tools, knowledge: knowledge, recognizer: recognizer,
                                  meaning: knowledge.embedder, logger: logger)
        let mediaLoop = MultiThreadedEventLoopGroup.singleton.next()
        let half = (config.sip.rtpPortMin + config.sip.rtpPortMax) / 2
        var ua = SIPUserAgent.Configuration()
        ua.bindHost = config.sip.bind
        ua.advertisedHost = config.sip.advertisedAddress
        ua.port = config.sip.port
        ua.transport = config.sip.transport
        ua.tls = config.sip.tlsFiles
        ua.srtp = config.sip.srtp
        ua.username = config.sip.username
        ua.password = config.sip.password
        ua.credentialsHost = config.sip.gateway.flatMap(SIPURI.init)?.host ?? "127.0.0.1"
        ua.maxInboundCalls = config.sip.maxInboundCalls
        ua.ringTimeout = .seconds(config.outbound.ringTimeoutSeconds)
        ua.mediaTimeoutSeconds = Double(config.sip.mediaTimeoutSeconds)
        ua.mediaGroup = mediaLoop
        ua.rateLimit = SIPRateLimiter.Limit(requestsPerSecond: config.sip.rateLimitPerSecond, burst: config.sip.rateLimitBurst,
                                            exempt: Set(config.sip.rateLimitExempt))
        ua.metrics = metrics.factory
        // Without a gateway the simulated callee takes the upper half of the RTP range.
        ua.rtpPorts = config.sip.rtpPortMin...(config.sip.gateway == nil ? half : config.sip.rtpPortMax)
        let userAgent = try SIPUserAgent(configuration: ua, logger: logger)
        let port: Int
        do { port = try await userAgent.start() } catch {
            throw StartupError(description: "cannot listen for SIP (\(config.sip.transport.rawValue)) on \(config.sip.bind):\(config.sip.port): \(error)")
        }

        var callee: SimulatedCallee?
        let gateway: SIPURI
        if let configured = config.sip.gateway.flatMap(SIPURI.init) {
            gateway = configured
        } else {
            let simulated = try simulatedCallee(config, rtpPorts: (half + 1)...config.sip.rtpPortMax, recognizer: recognizer, logger: logger)
            let calleePort = try await simulated.start()
            gateway = SIPURI(host: "127.0.0.1", port: calleePort)
            callee = simulated
            logger.info("no sip.gateway: outbound calls go to the built-in simulated callee", metadata: ["port": "\(calleePort)"])
        }
        var settings = CallManager.Settings(gateway: gateway)
        settings.tracer = tracer
        // The script goes only to a simulated callee: the built-in one, or a gateway said to be one.
        settings.simulatedCallee = callee != nil || config.sip.gatewayIsSimulatedCallee
        settings.maxConcurrentCalls = config.outbound.maxConcurrentCalls
        settings.campaignCallsPerMinute = config.outbound.campaignCallsPerMinute
        settings.maxInboundCalls = config.sip.maxInboundCalls
        settings.nodeID = config.cluster.resolvedNodeID(httpPort: config.http.port)
        settings.leaseSeconds = config.cluster.leaseSeconds
        settings.ringTimeout = .seconds(config.outbound.ringTimeoutSeconds)
        settings.maxCallDurationSeconds = config.outbound.maxCallDurationSeconds
        settings.retry = config.outbound.retry
        settings.machineDetection = config.outbound.machineDetection
        settings.transferTarget = config.transfer.target
        settings.warmTransfer = try warmTransfer(config, recognizer: recognizer, logger: logger)
        settings.transferTargets = config.transferTargetPolicy
        settings.toolSecrets = config.toolSecrets
        settings.mcpCatalog = MCPToolCatalog(transport: EgressToolTransport(policy: config.egressPolicy), secrets: config.toolSecrets)
        settings.ai = config.outbound.ai
        settings.inbound = config.inbound
        if config.carrier == .twilio, let sid = config.twilio.accountSID, let token = config.twilio.authToken, let publicURL = config.http.publicURL {
            var rest = TwilioCalls.Settings(accountSID: sid, username: config.twilio.apiKey ?? sid, password: config.twilio.apiSecret ?? token)
            rest.egress = config.egressPolicy
            rest.baseURL = config.twilio.apiBaseURL.hasSuffix("/") ? String(config.twilio.apiBaseURL.dropLast()) : config.twilio.apiBaseURL
            settings.carrier = TwilioCarrier(calls: TwilioCalls(settings: rest), publicURL: publicURL, fromNumber: config.twilio.fromNumber,
                                             machineDetection: config.twilio.machineDetection)
        }
        for route in config.inbound.routes {
            guard let name = route.template else { continue }
            guard (try? await store.template(name)) != nil else {
                throw StartupError(description: "inbound.routes.\(route.number).template: no template '\(name)' in the database (create it with POST /api/templates)")
            }
        }
        settings.language = config.engine.language
        settings.languageProblem = languageProblem(config.engine)
        if config.engine.mode == .local { settings.engineAdmission = config.engine.local.admission() }
        settings.engineMode = config.engine.mode.rawValue
        settings.pricing = config.pricing
        settings.localVoice = (try? localVoice(config.engine.local)).map(LocalVoice.init(tts:))
        settings.neuralVAD = try neuralVAD(for: config.engine, logger: logger)
        settings.echoCancellation = config.engine.echoCancellation
        settings.noiseSuppression = try noiseSuppression(for: config.engine)
        settings.noiseSuppressionByDefault = config.engine.noiseSuppression
        settings.holdBackgroundVoices = config.engine.holdBackgroundVoices
        settings.overlapHoldMilliseconds = config.engine.bargeIn.minMilliseconds
        settings.allowedCallerIDs = config.sip.allowedCallerIDs
        if config.outbound.result.saveRecording {
            settings.recordingsFolder = config.database.recordings
        }
        let scheduler = PacerScheduler<[UInt8]>()
        let loopSchedulers = loopSchedulers(mediaLoop: mediaLoop, scheduler: scheduler)
        let manager = CallManager(settings: settings, store: store, userAgent: userAgent, scheduler: scheduler, engines: engines, logger: logger, metrics: metrics)
        let webhooks = WebhookDispatcher(store: store, settings: .init(config.webhooks, egress: config.egressPolicy), logger: logger, tracer: tracer)
        return CallSystem(manager: manager, userAgent: userAgent, callee: callee, sipPort: port, scheduler: scheduler, mediaLoop: mediaLoop,
                          loopSchedulers: loopSchedulers, webhooks: webhooks, knowledge: knowledge,
                          afterCallTools: AfterCallToolDispatcher(store: store, runner: tools, settings: .init(config.webhooks, egress: config.egressPolicy),
                                                                  logger: logger, tracer: tracer),
                          analyses: CallAnalysisDispatcher(store: store, settings: .init(config.analysis, egress: config.egressPolicy), logger: logger, tracer: tracer),
                          audioSocket: try await audioSocket(config, schedulers: loopSchedulers, fallback: scheduler, logger: logger),
                          requireAudioSocketBinding: config.audioSocket.requireBinding)
    }

    /// Runs until cancelled; then every live call is ended (BYE or CANCEL) and every port freed.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.userAgent.run() }
            if let callee { group.addTask { await callee.run() } }
            for (loop, scheduler) in loopSchedulers {
                group.addTask { await scheduler.run(on: loop) }
            }
            group.addTask { await self.manager.run() }
            group.addTask { await self.webhooks.run() }
            group.addTask { await self.afterCallTools.run() }
            group.addTask { await self.analyses.run() }
            group.addTask { await self.manager.store.listenForEvents() }   // wakes /api/events readers (PostgreSQL)
            if let audioSocket {
                group.addTask { await audioSocket.run { leg, start in await self.answer(audioSocket: leg, start: start) } }
            }
        }
    }
}
