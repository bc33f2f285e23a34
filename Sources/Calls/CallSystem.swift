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

    /// Local engines sharing one recognizer; a call's own voice gets its own synthesizer. `tools`
    /// run a flow's tool steps.
    /// A Korean call (`language: ko`) hears with Whisper and speaks with espeak-ng's Korean (`korean`).
    public static func localEngines(tts: any SpeechSynthesizer, stt: any SpeechRecognizer, korean: OfflineKorean? = nil,
                                    knowledge: (any KnowledgeSearching)? = nil,
                                    tools: ToolRunner? = nil, turns: TurnDetector = .pause, overlapMinimumWords: Int = 1,
                                    readBack: Set<AnswerKind> = ReadBack.defaultKinds, answerConfidence: AnswerConfidence = AnswerConfidence(),
                                    recognitionBias: Float = LocalEngine.defaultRecognitionBias, meaning: E5Embedder? = nil) -> EngineFactory {
        let english = stt
        return { context in
            var context = context
            context.readBack = readBack
            context.answerConfidence = answerConfidence
            let voice: any SpeechSynthesizer, stt: any SpeechRecognizer
            if DialoguePhrases.isKorean(context.language) {
                guard let korean else { throw StartupError(description: "language ko: this server's local engine has no Korean speech") }
                (stt, voice) = try korean.speech(voice: context.voice)
            } else {
                voice = try context.voice.map { try EspeakSynthesizer(voice: $0, wordsPerMinute: (tts as? EspeakSynthesizer)?.wordsPerMinute ?? EspeakSynthesizer.defaultWordsPerMinute) } ?? tts
                stt = english
            }
            return LocalEngine(context: context, tts: voice, stt: stt, turns: turns, knowledge: context.knowledge.isEmpty ? nil : knowledge,
                               tools: context.conversationTools.isEmpty ? nil : tools, overlapMinimumWords: overlapMinimumWords,
                               recognitionBias: recognitionBias, meaning: context.call.direction == "outbound" ? meaning : nil)
        }
    }

    /// The local engine's voice (`engine.local.voice`): `piper` for Piper's voice, else the
    /// espeak-ng voice of that name. `loadNow`: Piper's model is loaded here (a broken one stops
    /// the server at startup) rather than when it first speaks.
    static func localVoice(_ local: VoiceBridgeConfig.Engine.Local, loadNow: Bool = false) throws -> any SpeechSynthesizer {
        if local.voice == VoiceBridgeConfig.Engine.Local.piperVoice {
            let voice = try PiperVoice.installed(in: local.depsPath)
            if loadNow { try voice.load() }
            return voice
        }
        return try EspeakSynthesizer(voice: local.voice)
    }

    /// The call's tool runner: the operator's tools, and `search_knowledge` over the call's collections.
    static func runner(_ tools: ToolRunner?, for context: ConversationContext, knowledge: (any KnowledgeSearching)?) -> ToolRunner? {
        guard let tools, let knowledge, !context.knowledge.isEmpty else { return tools }
        return tools.adding(KnowledgeSearchTool(searcher: knowledge, collections: context.knowledge), named: KnowledgeSearchTool.name)
    }

    /// The engine factory for `engine.mode`; a call that names a bot (`bot_url`) goes to it
    /// whatever the mode. Local speech is loaded once, here, so a missing model stops the server
    /// at startup with a message that names `make deps`.
    /// `recognizer`: the offline recognizer when it is already loaded (the local engine shares it).
    public static func engines(for config: VoiceBridgeConfig.Engine, egress: EgressPolicy, tools: ToolRunner? = nil,
                               knowledge: (any KnowledgeSearching)? = nil, recognizer: MoonshineTranscriber? = nil, meaning: E5Embedder? = nil,
                               logger: Logger = Logger(label: "voicebridge.engines")) throws -> EngineFactory {
        let modeEngines = try modeEngines(for: config, tools: tools, knowledge: knowledge, recognizer: recognizer, meaning: meaning, logger: logger)
        let modeBot = config.mode == .stream ? config.stream.url : nil
        return { context in
            if let url = context.botURL ?? modeBot { return StreamBotEngine(url: url, context: context, egress: egress) }
            return try modeEngines(context)
        }
    }

    private static func modeEngines(for config: VoiceBridgeConfig.Engine, tools: ToolRunner?, knowledge: (any KnowledgeSearching)?,
                                    recognizer: MoonshineTranscriber?, meaning: E5Embedder?, logger: Logger) throws -> EngineFactory {
        switch config.mode {
        case .stream:
            return { _ in throw StartupError(description: "engine.mode stream needs engine.stream.url") }
        case .local:
            let tts: any SpeechSynthesizer
            let stt: MoonshineTranscriber
            do {
                tts = try localVoice(config.local, loadNow: true)   // the agent speaks in every call
                stt = try recognizer ?? localRecognizer(config.local)
            } catch {
                throw StartupError(description: "the local engine cannot start: \(error)")
            }
            // A server whose calls are Korean unless they say otherwise must hear Korean from the start.
            let offlineKorean = korean(config.local)
            if DialoguePhrases.isKorean(config.language), let problem = offlineKorean.problem() {
                throw StartupError(description: "engine.language ko: \(problem)")
            }
            return localEngines(tts: tts, stt: stt, korean: offlineKorean, knowledge: knowledge, tools: tools, turns: try turnDetector(for: config, logger: logger),
                                overlapMinimumWords: config.bargeIn.minWords, readBack: config.local.readBack,
                                answerConfidence: config.local.answerConfidence, recognitionBias: Float(config.local.recognitionBias), meaning: meaning)
        case .echo:
            return { _ in EchoEngine(sampleRate: 8000) }
        case .loopback:
            return { _ in LoopbackEngine() }
        case .realtime:
            guard let key = config.openAI.apiKey, !key.isEmpty else {
                throw StartupError(description: "engine.mode realtime needs engine.openai.api_key (or OPENAI_API_KEY)")
            }
            var settings = OpenAIRealtimeEngine.Settings(apiKey: key)
            settings.baseURL = config.openAI.baseURL
            settings.model = config.openAI.realtimeModel
            settings.voice = config.openAI.voice
            settings.vad = .init(threshold: config.openAI.vadThreshold, prefixPaddingMs: config.openAI.prefixPaddingMs,
                                 silenceDurationMs: config.openAI.silenceDurationMs)
            settings.overlapMinimumWords = config.bargeIn.minWords
            let fixed = settings
            return { context in
                var settings = fixed
                settings.voice = context.voice ?? fixed.voice
                return OpenAIRealtimeEngine(context: context, settings: settings, tools: runner(tools, for: context, knowledge: knowledge))
            }
        case .cascade:
            let c = config.cascade
            let llmKey = c.llmAPIKey ?? config.openAI.apiKey
            let stt: CascadeEngine.Settings.STT
            switch c.stt {
            case .deepgram:
                guard let key = config.deepgram.apiKey, !key.isEmpty else {
                    throw StartupError(description: "engine.cascade.stt deepgram needs engine.deepgram.api_key (or DEEPGRAM_API_KEY)")
                }
                stt = .deepgram(baseURL: config.deepgram.baseURL, apiKey: key, model: config.deepgram.model)
            case .openai:
                stt = .openAI(model: c.transcriptionModel)
            }
            guard config.openAI.apiKey?.isEmpty == false else {
                throw StartupError(description: "engine.mode cascade speaks through OpenAI's /audio/speech: set engine.openai.api_key (or OPENAI_API_KEY)")
            }
            var settings = CascadeEngine.Settings(stt: stt, llmBaseURL: c.llmBaseURL, llmAPIKey: llmKey, llmModel: c.llmModel,
                                                  audioBaseURL: config.openAI.baseURL, audioAPIKey: config.openAI.apiKey)
            settings.ttsModel = c.ttsModel
            settings.ttsVoice = c.ttsVoice
            settings.earlyReplies = c.earlyReplies
            settings.turns = try turnDetector(for: config, logger: logger)
            settings.overlapMinimumWords = config.bargeIn.minWords
            let fixed = settings
            return { context in
                var settings = fixed
                settings.ttsVoice = context.voice ?? fixed.ttsVoice
                return CascadeEngine(context: context, settings: settings, tools: runner(tools, for: context, knowledge: knowledge))
            }
        }
    }

    /// Silero for the caller side's VAD, as `engine.vad` asks: next to Moonshine in `make deps`'s
    /// folder. Asked for by name and missing, the server does not start; under `auto` it falls
    /// back to the energy detector with a warning.
    static func neuralVAD(for engine: VoiceBridgeConfig.Engine, logger: Logger) throws -> SileroModel? {
        let wanted = switch engine.vad {
        case .neural: true
        case .energy: false
        case .auto: engine.mode == .local || engine.mode == .cascade
        }
        guard wanted else { return nil }
        do {
            return try SileroModel.installed(in: engine.local.depsPath)
        } catch {
            guard engine.vad == .auto else { throw StartupError(description: "engine.vad neural: \(error)") }
            logger.warning("the neural VAD is not installed (make deps); the energy detector decides", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// DeepFilterNet3 for the caller side, from `make deps`'s folder. With `engine.noise_suppression`
    /// every call uses it, and missing, the server does not start. Without it, it is loaded if
    /// installed, for the calls and templates that ask for it (`noise_suppression: true`); nil
    /// when it is not, and such calls are refused by field.
    static func noiseSuppression(for engine: VoiceBridgeConfig.Engine) throws -> NoiseSuppression? {
        do {
            return try NoiseSuppression.installed(in: engine.local.depsPath)
        } catch {
            guard engine.noiseSuppression else { return nil }
            throw StartupError(description: "engine.noise_suppression: \(error)")
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
