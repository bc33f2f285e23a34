import Dialogue
import Foundation
import HummingbirdWSClient
import Logging
import Pipeline
import Synchronization
import Tools

/// OpenAI Realtime (GA) speech-to-speech over one WebSocket per call (PROTOCOLS.md §3).
///
/// G.711 μ-law both ways, so a phone leg's bytes pass through untouched. The server's VAD finds
/// turns and the engine asks for each reply; speech over the agent is judged by its words
/// (`+Overlap`), and the session's `interrupt` becomes `response.cancel` and
/// `conversation.item.truncate` at the time actually played (never past what was generated).
/// Goal progress arrives as `update_task_state` / `end_call` tool calls, or as the
/// `[TASK_STATE]` fallback in the transcript. `start()` owns the connection for the whole call
/// (it runs inside the call's task group): a dropped socket is reconnected once with the
/// conversation replayed; a second drop ends the call as `engine_disconnected`.
public final class OpenAIRealtimeEngine: ConversationEngine, TaskStateReporting {
    public struct VAD: Sendable, Equatable {
        public var threshold = 0.5
        public var prefixPaddingMs = 300
        public var silenceDurationMs = 500
        public init(threshold: Double = 0.5, prefixPaddingMs: Int = 300, silenceDurationMs: Int = 500) {
            self.threshold = threshold
            self.prefixPaddingMs = prefixPaddingMs
            self.silenceDurationMs = silenceDurationMs
        }
    }

    public struct Settings: Sendable {
        public var baseURL = "https://api.openai.com/v1"
        public var apiKey: String
        public var model = "gpt-realtime"
        public var voice = "alloy"
        public var vad = VAD()
        public var reconnects = 1
        /// `barge_in.min_words`: fewer words over the agent than this (backchannels aside) do not cut it.
        public var overlapMinimumWords = 1
        public init(apiKey: String) { self.apiKey = apiKey }

        /// `https://host/v1` → `wss://host/v1/realtime?model=…`.
        var url: String {
            var base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            if base.hasPrefix("https://") { base = "wss://" + base.dropFirst(8) } else if base.hasPrefix("http://") { base = "ws://" + base.dropFirst(7) }
            return "\(base)/realtime?model=\(model)"
        }
    }

    public static let disconnected = "engine_disconnected"

    public let inputFormat = EngineAudioFormat.muLaw
    public let outputFormat = EngineAudioFormat.muLaw
    /// Deltas come faster than real time; room for a long answer so the socket reader never
    /// waits behind playout (and so `speech_started` is read the moment it arrives).
    public let events = BoundedQueue<EngineEvent>(capacity: 2048, policy: .suspendProducer)
    let meter = UsageMeter()
    public var usage: EngineUsage { meter.usage }

    let settings: Settings
    let context: ConversationContext
    let logger: Logger
    let state: Mutex<State>
    /// Runs the operator's tools (`context.tools`); nil: the call has none to run.
    let toolRunner: ToolRunner?

    struct State {
        var tracker: TaskTracker
        var writer: WebSocketOutboundWriter?
        /// Lines so far, replayed into a new session after a reconnect.
        var history: [(Speaker, String)] = []
        /// μ-law bytes received per assistant item (8 bytes = 1 ms).
        var generatedBytes: [String: Int] = [:]
        var interrupted: Set<String> = []
        var lastAssistantItem: String?
        var closingReason: String?
        var ended = false
        /// The `transfer_call` tool call waiting for the session's outcome.
        var transferCallID: String?
        var stopped = false
        var aiTurns = 0
        var droppedAppends = 0
        /// The connection's queue of the operator's tool calls (run one at a time, beside the socket).
        var toolCalls: AsyncStream<RealtimeServerEvent.FunctionCall>.Continuation?
        /// A waiting line was asked for and its response is not done: the tool's answer waits for
        /// it, until this is finished (by the response's end).
        var waitingLine: AsyncStream<Void>.Continuation?
        /// A flow's prompt for its current step (sent again with `session.update` as the step
        /// changes); nil: the call's fixed prompt.
        var instructions: String?
        var overlap = OverlapState()
    }

    public init(context: ConversationContext, settings: Settings, tools: ToolRunner? = nil, logger: Logger = Logger(label: "openai-realtime")) {
        self.context = context
        self.toolRunner = tools
        self.settings = settings
        self.logger = logger
        self.state = Mutex(State(tracker: TaskTracker(context: context)))
        if let first = beginFlow() { state.withLock { $0.instructions = first } }
    }

    public func start() async throws {
        var connections = 0
        while true {
            let opened = await connect(restoring: connections > 0)
            connections += 1
            if state.withLock({ $0.stopped || $0.ended }) || Task.isCancelled { return }
            if !opened && connections == 1 {
                throw EngineError("cannot connect to the OpenAI Realtime API at \(settings.url)")
            }
            guard connections <= settings.reconnects else {
                logger.error("realtime socket lost for good", metadata: ["reconnects": "\(settings.reconnects)"])
                events.sendUrgent(.error(message: Self.disconnected, fatal: true))
                return
            }
            logger.warning("realtime socket dropped; reconnecting with the conversation restored")
            try? await TaskClock().sleep(for: .milliseconds(300))
        }
    }

    /// One connection until the socket closes. False when it never opened.
    func connect(restoring: Bool) async -> Bool {
        var configuration = WebSocketClientConfiguration()
        configuration.additionalHeaders = [.authorization: "Bearer \(settings.apiKey)"]
        configuration.addTraceParent()
        configuration.maxFrameSize = 16 << 20
        let opened = Atomic<Bool>(false)
        do {
            try await WebSocketClient.connect(url: settings.url, configuration: configuration, logger: logger) { inbound, outbound, _ in
                opened.store(true, ordering: .relaxed)
                try await outbound.write(.text(RealtimeClientEvent.sessionUpdate(
                    instructions: self.state.withLock { $0.instructions } ?? PromptBuilder.instructions(for: self.context), voice: self.settings.voice,
                    language: self.context.language, vad: self.settings.vad, tools: PromptBuilder.tools(for: self.context))))
                let history = self.state.withLock { s in
                    s.writer = outbound
                    return s.history
                }
                if restoring {
                    for (speaker, text) in history { try await outbound.write(.text(RealtimeClientEvent.restoredMessage(speaker: speaker, text: text))) }
                    try await outbound.write(.text(RealtimeClientEvent.responseCreate(
                        instructions: "The line dropped for a moment. Briefly apologise and continue with the next unanswered question.")))
                } else if !self.context.followsMenuPath {   // behind a known phone menu: the model waits for a person (rule 13)
                    try await outbound.write(.text(RealtimeClientEvent.responseCreate(
                        instructions: "Start the call now: say \"\(self.context.greeting)\" and " + (self.context.flow == nil ? "ask the first question." : "follow the current step."))))
                }
                // The operator's tools run beside the socket, so events keep flowing while one runs.
                let (toolCalls, toolInput) = AsyncStream.makeStream(of: RealtimeServerEvent.FunctionCall.self, bufferingPolicy: .bufferingOldest(8))
                self.state.withLock { $0.toolCalls = toolInput }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { for await call in toolCalls { await self.runTool(call, writer: outbound) } }
                    for try await message in inbound.messages(maxSize: 16 << 20) {
                        guard case .text(let text) = message else { continue }
                        await self.handle(text)
                        if self.state.withLock({ $0.ended || $0.stopped }) { break }
                    }
                    toolInput.finish()
                    group.cancelAll()
                }
            }
        } catch {
            logger.warning("realtime socket error", metadata: ["error": "\(error)"])
        }
        state.withLock { $0.writer = nil }
        return opened.load(ordering: .relaxed)
    }

    public func send(muLaw: [UInt8], speech: SpeechActivity) async {
        // Server VAD decides turns; the local VAD's view only settles speech over the agent it never heard.
        await overlapActivity(speech)
        guard let writer = state.withLock({ $0.writer }) else {
            state.withLock { $0.droppedAppends += 1 }   // between connections: the audio is lost, counted
            return
        }
        meter.add { $0.realtimeAudioSeconds += Double(muLaw.count) / 8000 }
        try? await writer.write(.text(RealtimeClientEvent.append(muLaw)))
    }

    /// 8 kHz PCM from a leg that decoded already: back to μ-law, the session's format.
    public func send(samples: [Int16], speech: SpeechActivity) async {
        await send(muLaw: G711.encode(samples, law: .muLaw), speech: speech)
    }

    /// A key press goes to the model as a user line (kept for a reconnect), and asks for a reply.
    public func dtmf(_ digit: Character) async {
        let text = PromptBuilder.keyPress(digit)
        let writer = state.withLock { s in
            s.history.append((.customer, text))
            return s.writer
        }
        guard let writer else { return }
        try? await writer.write(.text(RealtimeClientEvent.restoredMessage(speaker: .customer, text: text)))
        try? await writer.write(.text(RealtimeClientEvent.responseCreate()))
    }

    /// The caller cut the agent: the response still being written stops (the server VAD does not
    /// cut on its own), and the item is truncated to what was heard.
    public func interrupt(item: String, playedMilliseconds: Int) async {
        let (writer, end, active) = state.withLock { s -> (WebSocketOutboundWriter?, Int, Bool) in
            s.interrupted.insert(item)
            // audio_end_ms must never exceed the item's audio, or the server errors.
            return (s.writer, min(playedMilliseconds, (s.generatedBytes[item] ?? 0) / 8), s.overlap.responseActive)
        }
        guard let writer else { return }
        if active { try? await writer.write(.text(RealtimeClientEvent.responseCancel)) }
        guard end > 0 else { return }
        try? await writer.write(.text(RealtimeClientEvent.truncate(itemID: item, audioEndMilliseconds: end)))
    }

    /// The call must end (duration limit, operator): the model says the closing line, then end.
    public func close(reason: String) async {
        let writer = state.withLock { s -> WebSocketOutboundWriter? in
            s.closingReason = reason
            return s.writer
        }
        guard let writer else {
            events.sendUrgent(.endCall(reason: reason, afterItem: nil))
            return
        }
        try? await writer.write(.text(#"{"type":"response.cancel"}"#))
        try? await writer.write(.text(RealtimeClientEvent.responseCreate(instructions: "Say exactly \"\(context.closing)\" and nothing else.")))
    }

    public func stop() async -> TaskTracker {
        let (writer, tracker, dropped) = state.withLock { s in
            s.stopped = true
            defer { s.writer = nil }
            return (s.writer, s.tracker, s.droppedAppends)
        }
        try? await writer?.close(.normalClosure, reason: "call ended")
        if dropped > 0 { logger.warning("caller audio lost while the realtime socket was down", metadata: ["frames": "\(dropped)"]) }
        events.finish()
        return tracker
    }
}

struct EngineError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
