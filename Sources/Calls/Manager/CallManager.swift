import Bridge
import Dialogue
import Knowledge
import Foundation
import Tracing
import Simulation
import Tools
import Logging
import Pipeline
import Realtime
import Synchronization
import TraceContext

/// Makes the conversation engine for one call.
public typealias EngineFactory = @Sendable (ConversationContext) throws -> any ConversationEngine

/// Seed 000 §5.1: the outbound call queue and every call's life, plus inbound calls on the same
/// machinery. The queue is the database, so it survives a restart. `run()` owns every call's
/// task: when it returns, no call task, socket or port is left.
public actor CallManager {
    public struct Settings: Sendable {
        public var maxConcurrentCalls = 5
        /// All campaigns' dials per minute (`outbound.campaign_calls_per_minute`).
        public var campaignCallsPerMinute = 600
        public var ringTimeout: Duration = .seconds(30)
        public var maxCallDurationSeconds = 300
        public var retry = VoiceBridgeConfig.Outbound.Retry()
        public var gateway: SIPURI
        /// The gateway is the built-in simulated callee: pass `metadata.simulated_answers` to it.
        public var simulatedCallee = false
        public var recordingsFolder: String?
        public var ai = VoiceBridgeConfig.Outbound.AI()
        public var inbound = VoiceBridgeConfig.Inbound()
        public var language = "en"
        public var pricing = Pricing()
        public var allowedCallerIDs: [String] = []
        /// Seed 000 §11 (spam): a second call to a number that already has one queued or live is refused.
        public var oneOpenCallPerCallee = true
        /// Says goodbye when a call's engine is lost (espeak-ng; nil when it cannot load).
        public var localVoice: LocalVoice?
        /// Silero for every call's VAD (`engine.vad: neural`); nil: the energy detector.
        public var neuralVAD: SileroModel?
        /// `engine.echo_cancellation`: the caller side takes the agent's echo out before the VAD.
        public var echoCancellation = false
        /// The caller side takes the line's noise out before the VAD, on the calls that use it; nil:
        /// not installed, no call can.
        public var noiseSuppression: NoiseSuppression?
        /// `engine.noise_suppression`: whether a call that does not say (nor its template) uses it.
        public var noiseSuppressionByDefault = true
        /// `engine.hold_background_voices`: the caller side's VAD holds voices behind the caller below speech.
        public var holdBackgroundVoices = false
        /// `barge_in.min_ms`: speech over the agent this long holds it until its words are judged.
        public var overlapHoldMilliseconds = 500
        /// Why this server cannot hold a call in a language ("ko" on a local engine without Whisper),
        /// or nil when it can.
        public var languageProblem: @Sendable (String) -> String? = { _ in nil }
        /// Calls the engine can serve at once in time (the local engine shares the machine's cores:
        /// `engine.local.max_calls`, and the limit learnt from `engine.local.turn_latency_goal_ms`);
        /// nil: only `maxConcurrentCalls` limits. Outbound calls beyond it stay queued; an inbound
        /// INVITE beyond it gets 503.
        public var engineAdmission: CallAdmission.Settings?
        /// `sip.max_inbound_calls`: inbound media streams count against it as INVITEs do.
        public var maxInboundCalls = 20
        /// `engine.mode`: a template written for another engine is refused, not run on this one.
        public var engineMode = "local"
        /// Where each call's spans go — its attempts live, their turns when they end (`telemetry.otlp_endpoint`); nil: none are made.
        public var tracer: (any Tracer)?
        /// `carrier: twilio`: outbound calls go through Twilio's REST API, not `gateway`.
        public var carrier: TwilioCarrier?
        /// Where callers who ask for a person are handed (`transfer.target`), unless a call or template says otherwise.
        public var transferTarget: String?
        /// Which `transfer_to` values calls and templates may hold (`transfer.allowed_targets`).
        public var transferTargets = TransferTargetPolicy()
        /// Set when transfers are warm (`transfer.mode: warm`).
        public var warmTransfer: WarmTransfer.Settings?
        /// The secrets tools may name: a declaration naming another is refused.
        public var toolSecrets = ToolSecrets()
        /// Lists the MCP servers' tools when a call starts (cached); nil: MCP servers are not asked.
        public var mcpCatalog: MCPToolCatalog?
        /// Answering-machine detection on SIP calls, unless a call or its template says otherwise.
        public var machineDetection = VoiceBridgeConfig.Outbound.MachineDetection()
        /// This node among those sharing the database (`cluster.node_id`), and how long its lease
        /// lasts without a heartbeat before another node takes its calls over (`cluster.lease_seconds`).
        public var nodeID = "node-" + String(format: "%08x", UInt32.random(in: .min ... .max))
        public var leaseSeconds: Double = 15
        /// What every wait and stamp of the manager and its calls reads: the continuous clock, or
        /// a virtual time (`VirtualTimeExecutor`: tests and test runs).
        public var clock = CallClock.continuous
        /// Outbound calls are answered by this simulated callee inside the process, over legs
        /// joined in memory (`MemoryLeg`) — no SIP, no sockets: what calls in virtual time dial.
        public var inProcessCallee: SimulatedCallee?
        /// The line those calls run over: noise behind the callee, the agent's echo (a test run's
        /// `line`); nil: a clean line.
        public var inProcessLine: LineBed?

        public init(gateway: SIPURI) { self.gateway = gateway }
    }

    /// What cancelling needs to reach while a call is live.
    final class LiveCall: Sendable {
        let sipCall = Mutex<SIPCall?>(nil)
        /// The call's Twilio SID once Twilio has it (`carrier: twilio`).
        let twilioSID = Mutex<String?>(nil)
        let session = Mutex<CallSession?>(nil)
        let cancelRequested = Atomic<Bool>(false)
        /// The running attempt's span, when calls are traced (`settings.tracer`).
        let trace = Mutex<CallSpan?>(nil)
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notFound(String)
        case conflict(String)
        /// The callee is on the do-not-call list.
        case doNotCall(String)

        public var description: String {
            switch self {
            case .notFound(let id): "no call with id \(id)"
            case .conflict(let message): message
            case .doNotCall(let number): "\(number) is on the do-not-call list; remove it there to call it"
            }
        }
    }

    let settings: Settings
    let store: CallStore
    let userAgent: SIPUserAgent
    let scheduler: PacerScheduler<[UInt8]>
    let engines: EngineFactory
    let logger: Logger
    let metrics: CallMetrics
    /// Every call's pipeline meters, summed by stage for `/metrics`.
    public nonisolated let pipelineStatistics = PipelineStatistics()
    var live: [String: LiveCall] = [:] {
        didSet {
            liveCalls.store(live.count, ordering: .relaxed)
            // A place freed: a waiting call may go now. Not where other nodes share the queue
            // unheard (SQLite with a second node): each node looks every 100 ms while a call waits
            // for a place, and a ring here would hand every place this node frees back to it first
            // (the other node, having lost the first claims, then dialed nothing).
            if live.count < oldValue.count {
                if !queueSharedUnheard { queueAlarm.ring() }
                callEnded.ring()
            }
        }
    }
    /// Rung when a call stops being live here, for `waitUntilNoLiveCalls`.
    nonisolated let callEnded = EventBell()
    /// Wakes the dispatch loop: rung when a call is queued or a place frees up, armed for the next
    /// queued call's time (`run()`).
    nonisolated let queueAlarm: WakeAlarm
    /// `live.count`, for the SIP admission decision (made outside this actor).
    nonisolated let liveCalls = Atomic<Int>(0)
    /// The engine's limit of calls at once (`settings.engineAdmission`), moved by the turns it measures.
    public nonisolated let admission: CallAdmission?
    /// Whether another node held a lease at this node's last renewal (`keepLease`); until the
    /// first, assumed so.
    var otherNodesSeen = true
    public internal(set) var mostLiveAtOnce = 0
    /// Inbound calls on media streams now live (SIP's are counted by the user agent).
    var inboundStreams = 0
    /// Outbound Twilio calls waiting for their status callbacks and media stream.
    var twilioWaiters: [String: AsyncStream<TwilioCallEvent>.Continuation] = [:]
    /// Each running campaign's dial pacing.
    var campaignPacers: [String: DialPacer] = [:]
    /// `outbound.campaign_calls_per_minute`: every campaign's dials draw on it.
    lazy var campaignBudget = DialBudget(callsPerMinute: settings.campaignCallsPerMinute)
    /// Campaigns whose queued calls may be dialed now (running, inside their window).
    var dialableCampaigns: Set<String> = []
    /// Campaigns paused or cancelled while a tick was reading the database: the tick's view of
    /// them is older than the pause, so it may not make them dialable again.
    var campaignsStoppedDuringTick: Set<String> = []

    public init(settings: Settings, store: CallStore, userAgent: SIPUserAgent, scheduler: PacerScheduler<[UInt8]>,
                engines: @escaping EngineFactory, logger: Logger, metrics: CallMetrics = .none) {
        self.metrics = metrics
        self.settings = settings
        self.store = store
        self.userAgent = userAgent
        self.scheduler = scheduler
        self.engines = engines
        self.logger = logger
        let queueAlarm = WakeAlarm(clock: settings.clock)
        self.queueAlarm = queueAlarm
        admission = settings.engineAdmission.map { CallAdmission(settings: $0, raised: { queueAlarm.ring() }) }
    }

    public var liveCount: Int { live.count }
    /// Calls the engine admits now beyond those live (`.max`: no engine limit).
    var engineRoom: Int { admission?.room(live: live.count) ?? .max }

    /// Returns once no call is live on this node (true), or when `timeout` has passed on the
    /// manager's clock with some still live (false). A call's last writes are in when it stops
    /// being live, so this is what a caller waits on before reading them, rather than polling.
    public func waitUntilNoLiveCalls(timeout: Duration) async -> Bool {
        let deadline = settings.clock.now.advanced(by: timeout)
        while !live.isEmpty, settings.clock.now < deadline {
            // The bell's own timeout only bounds a ring missed between the look and the wait.
            await callEnded.wait(timeout: min(.seconds(1), settings.clock.now.duration(to: deadline)))
        }
        return live.isEmpty
    }

    /// The report of a call whose session is running now, its figures still growing.
    public func liveReport(id: String) -> CallReport? {
        live[id]?.session.withLock { $0 }?.report
    }

    /// A call's audio as it is recorded, while its session runs on this node (nil: not live here,
    /// or not recorded — `outbound.recordings_folder` unset).
    public func listen(to id: String) -> AsyncStream<[UInt8]>? {
        live[id]?.session.withLock { $0 }?.recorder?.listen()
    }

    // MARK: Operator actions

    /// Validates and queues a call; the returned record is already stored (state `queued`).
    /// `traceParent`: the request's own trace (its `traceparent` header), which a traced call joins.
    public func create(_ request: OutboundCallRequest, requestedBy: String = "operator", traceParent: TraceParent? = nil) async throws -> CallRecord {
        let record = try await insert(record(for: request, requestedBy: requestedBy), under: traceParent)
        queueAlarm.ring()
        return record
    }

    /// A queued call for `request` over its template, if it names one; validated, not stored yet.
    func record(for request: OutboundCallRequest, requestedBy: String) async throws -> CallRecord {
        var template: CallTemplate?
        if let key = request.template { template = try await runnableTemplate(key) }
        return try record(for: request, template: template, requestedBy: requestedBy)
    }

    /// Stores a new call and returns it as stored (its id fresh if the drawn one was taken); a
    /// number on the do-not-call list, or with a call open already, is refused. Traced, the call
    /// keeps its "call queued" span's context (under `received`), which all its attempts are under.
    func insert(_ record: CallRecord, under received: TraceParent? = nil) async throws -> CallRecord {
        guard let tracer = settings.tracer else { return try await storeNew(record) }
        let queued = CallSpan.Queued(on: tracer, under: received, at: settings.clock.date)
        var record = record
        record.traceParent = queued.traceParent?.value
        do {
            let stored = try await storeNew(record)
            queued.end(callID: stored.outboundId)
            return stored
        } catch {
            queued.end(callID: nil)
            throw error
        }
    }

    private func storeNew(_ record: CallRecord) async throws -> CallRecord {
        do {
            return try await store.insert(record, onlyIfCalleeFree: settings.oneOpenCallPerCallee).call
        } catch CallStore.Failure.calleeBusy(let number, let existing) {
            throw Failure.conflict("a call to \(number) is already queued or live (\(existing)); one open call per number")
        } catch CallStore.Failure.doNotCall(let number) {
            throw Failure.doNotCall(number)
        }
    }

    /// A queued call for `request` over `template`, validated (every problem at once), not stored yet.
    nonisolated func record(for request: OutboundCallRequest, template: CallTemplate?, requestedBy: String) throws -> CallRecord {
        let valid = try request.applying(template).validated(maxCallDuration: settings.maxCallDurationSeconds, allowedCallerIDs: settings.allowedCallerIDs,
                                                                  numbers: store.numbers)
        if let language = valid.language, valid.botURL == nil, language != settings.language, let problem = settings.languageProblem(language) {
            throw ValidationError(fields: [.init(name: "language", message: problem)])
        }
        if let voice = valid.voice, valid.botURL == nil, let problem = voiceProblem(voice) { throw ValidationError(fields: [.init(name: "voice", message: problem)]) }
        if let url = valid.botURL, let problem = VoiceBridgeConfig.botURLProblem(url) { throw ValidationError(fields: [.init(name: "bot_url", message: problem)]) }
        if let target = valid.transferTo, let problem = transferTargetRefusal(target) { throw ValidationError(fields: [.init(name: "transfer_to", message: problem)]) }
        if valid.noiseSuppression == true, let problem = noiseSuppressionProblem { throw ValidationError(fields: [.init(name: "noise_suppression", message: problem)]) }
        let missingSecrets = ToolDefinition.problems(in: valid.tools ?? [], secrets: settings.toolSecrets)
            + MCPServerDeclaration.problems(in: valid.mcpServers ?? [], secrets: settings.toolSecrets)
        if !missingSecrets.isEmpty { throw ValidationError(fields: missingSecrets.map { .init(name: $0.field, message: $0.message) }) }
        var record = CallRecord(outboundId: CallRecord.newID(), callerNumber: valid.callerNumber, calleeNumber: valid.calleeNumber,
                                callerDisplayName: valid.callerDisplayName ?? "", purpose: valid.purpose, questions: valid.questions,
                                maxDuration: valid.maxDuration ?? min(180, settings.maxCallDurationSeconds), priority: valid.priority ?? 5,
                                scheduledAt: valid.scheduledAt, retryOnNoAnswer: valid.retryOnNoAnswer ?? true,
                                maxRetries: valid.maxRetries ?? settings.retry.maxRetries, retryInterval: settings.retry.retryIntervalSeconds, createdAt: settings.clock.date,
                                metadata: valid.metadata, requestedBy: requestedBy)
        record.state = .queued
        record.templateId = template?.id
        record.templateVersion = template?.version
        record.greeting = valid.greeting
        record.closing = valid.closing
        record.voice = valid.voice
        record.language = valid.language
        record.botUrl = valid.botURL
        record.machineDetection = valid.machineDetection
        record.voicemailMessage = valid.voicemailMessage
        record.transferTo = valid.transferTo
        record.noiseSuppression = valid.noiseSuppression
        record.tools = valid.tools
        record.mcpServers = valid.mcpServers
        record.knowledge = valid.knowledge
        return record
    }

    /// Queued: dropped from the queue. Dialing or ringing: CANCEL. Connected: closing line, BYE.
    public func cancel(id: String) async throws {
        guard let call = try await store.call(id: id) else { throw Failure.notFound(id) }
        guard !call.state.isTerminal else { throw Failure.conflict("call \(id) has already ended (\(call.state.rawValue))") }
        if call.state == .queued, live[id] == nil {
            do {
                try await store.transition(id: id, to: .cancelled, from: .queued, reason: "cancelled by operator", now: settings.clock.date)
                return
            } catch CallStore.Failure.invalidTransition {
                // The scheduler started it while this was being written: it is cancelled live, below.
            }
        }
        guard let handle = live[id] else {
            // Nodes share the queue, not their calls: a live call is cancelled by the node running it.
            if let current = try await store.call(id: id), !current.state.isTerminal, let node = current.nodeId, node != settings.nodeID {
                throw Failure.conflict("call \(id) is \(current.state.rawValue) on node \(node); cancel it through that node")
            }
            return
        }
        await end(handle)
    }

    /// Ends a live call at whatever stage it is: connected, the closing line and BYE; dialing or
    /// ringing, CANCEL (or Twilio's). The call's task stores the outcome as `cancelled`.
    func end(_ handle: LiveCall) async {
        handle.cancelRequested.store(true, ordering: .relaxed)
        if let session = handle.session.withLock({ $0 }) {
            session.requestEnd(.cancelled)
        } else if let sipCall = handle.sipCall.withLock({ $0 }) {
            await sipCall.cancel()
        } else if let sid = handle.twilioSID.withLock({ $0 }), let carrier = settings.carrier {
            await cancelTwilioCall(sid, carrier: carrier)
        }
    }

    /// An ended call goes back in the queue as a new attempt.
    public func retry(id: String) async throws -> CallRecord {
        guard let call = try await store.call(id: id) else { throw Failure.notFound(id) }
        guard call.state.isTerminal else { throw Failure.conflict("call \(id) is still \(call.state.rawValue)") }
        try await store.transition(id: id, to: .queued, reason: "retry requested", now: settings.clock.date)
        queueAlarm.ring()
        return try await store.call(id: id) ?? call
    }

    func finished(_ id: String) { live[id] = nil }

    /// What the call's engine and session work from; an inbound call greets with the inbound greeting.
    func context(for call: CallRecord) async -> ConversationContext {
        let language = call.language ?? settings.language
        // The configured lines are English unless the operator wrote others: a call in another
        // language greets in it.
        let phrases = DialoguePhrases.of(language)
        let configuredGreeting = settings.ai.greetingTemplate == DialoguePhrases.english.greeting ? phrases.greeting : settings.ai.greetingTemplate
        let configuredClosing = settings.ai.closingTemplate == DialoguePhrases.english.closing ? phrases.closing : settings.ai.closingTemplate
        let inboundGreeting = settings.inbound.greeting == DialoguePhrases.english.inboundGreeting ? phrases.inboundGreeting : settings.inbound.greeting
        var context = ConversationContext(purpose: call.purpose, questions: call.questions,
                                          displayName: call.callerDisplayName.isEmpty ? settings.inbound.displayName : call.callerDisplayName,
                                          language: language,
                                          greetingTemplate: call.greeting ?? (call.direction == .inbound ? inboundGreeting : configuredGreeting),
                                          closingTemplate: call.closing ?? configuredClosing, maxTurns: settings.ai.maxTurns,
                                          maxDurationSeconds: call.maxDuration, voice: call.voice)
        context.call = .init(id: call.outboundId, direction: call.direction.rawValue, from: call.callerNumber, to: call.calleeNumber)
        context.botURL = call.botUrl
        context.transferTarget = call.transferTo ?? settings.transferTarget
        context.tools = call.tools ?? []
        if let collections = call.knowledge, !collections.isEmpty {
            context.knowledge = collections
            context.tools.append(KnowledgeSearchTool.definition(collections: collections))
        }
        if let servers = call.mcpServers, !servers.isEmpty, let catalog = settings.mcpCatalog {
            let (listed, failures) = await catalog.tools(of: servers)
            context.tools += listed
            for failure in failures { logger.warning("an MCP server's tools could not be listed", metadata: ["call": "\(call.outboundId)", "server": "\(failure)"]) }
        }
        // The keys and the flow of the template version the call was made from.
        if let id = call.templateId, let version = call.templateVersion, let template = try? await store.template(id: id, version: version) {
            if let keypad = template.keypad { context.keypad = keypad }
            context.menuPath = template.menuPath ?? []
            context.languages = template.languages ?? []
            // A call that brought its own questions has no translation of them.
            context.translations = (template.translations ?? [:]).filter { $0.value.questions.count == call.questions.count }.mapValues { translation in
                var filled = translation   // only the server's own placeholders: a translation takes no variables
                filled.questions = translation.questions.map(context.filled)
                return filled
            }
            context.flow = template.flow
        }
        return context
    }

    func recorder(for call: CallRecord) -> CallRecorder? {
        guard let folder = settings.recordingsFolder else { return nil }
        // Its position in the recording follows the call's clock (8 kHz: a frame is 125 µs).
        let clock = settings.clock
        let started = clock.now
        return try? CallRecorder(path: (folder as NSString).appendingPathComponent("\(call.outboundId)-\(call.attemptCount).wav"), cipher: store.cipher,
                                 frameClock: { started.duration(to: clock.now).totalNanoseconds / 125_000 })
    }
}
