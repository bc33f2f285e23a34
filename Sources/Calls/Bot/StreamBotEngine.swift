import Bridge
import Dialogue
import Egress
import Foundation
import HummingbirdWSClient
import Logging
import Pipeline
import Realtime
import Synchronization
import Tools

/// Bring your own bot: the call is handed to an external WebSocket that speaks Twilio Media
/// Streams, and VoiceBridge speaks to it exactly as Twilio would — `connected`, `start` (the
/// call's id, numbers, purpose and questions in `customParameters`), `media` every 20 ms, `dtmf`,
/// `mark` echoed once the audio before it has been played, `stop`. The bot's `media` is played,
/// its `clear` flushes what is queued (its own barge-in), its `mark`s come back when heard. Any bot
/// written for Twilio works unchanged behind a SIP trunk.
///
/// The call stays a VoiceBridge call: the session records it, meters it and keeps its state. A
/// bot that knows VoiceBridge may also send `{"event":"voicebridge","voicebridge":{…}}` messages
/// (see `StreamBotExtension`) with transcript lines, answers and a hang-up; Twilio itself would
/// reject them, so a bot sends them only when `customParameters.voicebridge_extension` is set.
///
/// The bot's audio comes in items (`bot-1`, `bot-2`, …), one per stretch between its marks or
/// clears, so the session's played-time bookkeeping serves the bot's marks: an item's last mark
/// coming back from the leg (`itemPlayed`) releases the bot's marks that waited for it.
public final class StreamBotEngine: ConversationEngine {
    public let inputFormat = EngineAudioFormat.muLaw
    public let outputFormat = EngineAudioFormat.muLaw
    /// The bot's audio may come much faster than real time; the socket reader waits here.
    public let events = BoundedQueue<EngineEvent>(capacity: 2048, policy: .suspendProducer)
    /// The bot hears the caller and decides barge-in itself (its `clear`).
    public var allowsBargeIn: Bool { false }

    /// What goes to the bot, in order; sequence numbers are given as it is written. Caller audio
    /// for a bot that stopped reading is dropped oldest first (5 s held); marks, DTMF and `stop`
    /// overtake it.
    let outbox = BoundedQueue<MediaStreamEvent>(capacity: 256, policy: .dropOldest)
    /// Ends once `stop` went out to the bot (or the writer ended without it).
    private let stopGone: AsyncStream<Void>
    private let stopWritten: AsyncStream<Void>.Continuation
    let url: String
    let egress: EgressPolicy
    let context: ConversationContext
    let streamSid: String
    let logger: Logger
    let state: Mutex<State>

    struct State {
        var tracker: TaskTracker
        var chunks = 0
        var items = 0
        /// The item the bot's audio goes to now; a mark or clear closes it.
        var currentItem: String?
        /// Items with audio not yet all played, oldest first.
        var unplayed: [String] = []
        /// The bot's marks not yet echoed, each after the item it waits for (nil: none).
        var pendingMarks: [(name: String, after: String?)] = []
        var hangUp: String?
        /// `stop` is queued (the call is over).
        var stopped = false
        var unknown = 0
        var malformed = 0
    }

    public init(url: String, context: ConversationContext, egress: EgressPolicy, logger: Logger = Logger(label: "stream-bot")) {
        self.url = url
        self.egress = egress
        self.context = context
        self.logger = logger
        streamSid = "MZ" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        state = Mutex(State(tracker: TaskTracker(questions: context.questions)))
        (stopGone, stopWritten) = AsyncStream.makeStream(of: Void.self)
    }

    /// Messages from the bot that were not understood, and those of events it may not send.
    public var counters: (unknown: Int, malformed: Int) { state.withLock { ($0.unknown, $0.malformed) } }

    /// Connects and runs the stream for the whole call (it runs in the call's task group). A bot
    /// that cannot be reached (refused, TLS, not a WebSocket) throws: the call ends with the reason.
    /// A bot that closes the stream normally (1000) hangs up, as closing a Twilio stream does; one
    /// that drops it or closes with an error ends the call as an engine failure.
    public func start() async throws {
        let opened = Atomic<Bool>(false)
        var configuration = WebSocketClientConfiguration()
        configuration.maxFrameSize = 1 << 20
        configuration.addTraceParent()
        var close: WebSocketCloseFrame?
        // Checked after resolution; the WebSocket client then connects by name (it offers no way to
        // give it the checked address and keep the Host header), so an answer that changes between
        // the two lookups is not caught here — the webhooks' and Twilio's requests do pin it.
        // Parsed once (`OutboundURL`): the check sees the host the client is then given.
        let parsed: OutboundURL
        do { parsed = try OutboundURL(url, schemes: OutboundURL.socketSchemes) } catch {
            throw EngineStartError(description: "the bot URL \(url) is not one: \(error)")
        }
        do { _ = try await egress.destination(of: parsed) } catch {
            throw EngineStartError(description: "cannot reach the bot at \(url): \(error)")
        }
        do {
            close = try await WebSocketClient.connect(url: parsed.description, configuration: configuration, logger: logger) { inbound, outbound, _ in
                opened.store(true, ordering: .relaxed)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await self.write(to: outbound) }
                    group.addTask {
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            guard case .text(let text) = message else {
                                self.state.withLock { $0.malformed += 1 }
                                continue
                            }
                            await self.receive(text)
                        }
                    }
                    // The bot closing ends the stream; the call's end (`stop`) ends the writer.
                    try await group.next()
                    group.cancelAll()
                }
            }
        } catch {
            guard opened.load(ordering: .relaxed) else {
                // How it failed (refused, reset, timed out) stays in the log: the call's stored reason
                // must not tell an API user which ports answer behind the server.
                logger.warning("cannot reach the bot", metadata: ["url": "\(url)", "error": "\(error)"])
                throw EngineStartError(description: "cannot reach the bot at \(url): could not connect, or it did not accept a WebSocket")
            }
            logger.warning("bot stream error", metadata: ["url": "\(url)", "error": "\(error)"])
        }
        let (stopped, hungUp) = state.withLock { ($0.stopped, $0.hangUp) }
        guard !stopped, hungUp == nil, !Task.isCancelled else { return }
        if close?.closeCode == .normalClosure {
            await hangUp(reason: "the bot closed the stream")
        } else {
            let how = close.map { "closed the media stream (\($0.closeCode))" } ?? "dropped the media stream"
            events.sendUrgent(.error(message: "the bot at \(url) \(how)", fatal: true))
        }
    }

    /// `connected` and `start`, then whatever the call sends, until `stop`.
    private func write(to outbound: WebSocketOutboundWriter) async throws {
        defer { stopWritten.finish() }
        try await outbound.write(.text(TwilioMediaStreamCodec.encodeEvent(.connected(protocol: "Call", version: "1.0.0"), streamSid: streamSid, sequenceNumber: 0)))
        var sequence = 1
        try await outbound.write(.text(TwilioMediaStreamCodec.encodeEvent(.start(startMessage), streamSid: streamSid, sequenceNumber: sequence)))
        while let message = await outbox.next() {
            guard case .data(let event) = message else { continue }
            sequence += 1
            try await outbound.write(.text(TwilioMediaStreamCodec.encodeEvent(event, streamSid: streamSid, sequenceNumber: sequence)))
            if event == .stop {
                stopWritten.finish()
                try await outbound.close(.normalClosure, reason: "call ended")
                return
            }
        }
    }

    /// The `start` a bot gets: what Twilio sends, with the call in `customParameters`.
    var startMessage: MediaStreamStart {
        let questions = context.questions.enumerated().map { ["id": "q\($0.offset + 1)", "text": $0.element] }
        let questionsJSON = (try? JSONSerialization.data(withJSONObject: questions, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        let parameters = [
            "call_id": context.call.id, "direction": context.call.direction, "from": context.call.from, "to": context.call.to,
            "purpose": context.purpose, "questions": questionsJSON, "display_name": context.displayName,
            "greeting": context.greeting, "closing": context.closing, "language": context.language,
            "voicebridge_extension": StreamBotExtension.version,
        ]
        return MediaStreamStart(streamSid: streamSid, accountSid: "ACvoicebridge", callSid: context.call.id, customParameters: parameters)
    }

    public func send(muLaw: [UInt8], speech: SpeechActivity) async {
        let chunk = state.withLock { s in s.chunks += 1; return s.chunks }
        outbox.trySend(.media(MediaStreamMedia(track: "inbound", chunk: chunk, timestamp: (chunk - 1) * 20, payload: muLaw)))
    }

    /// Only a SIP leg's decoded audio would come here; the bot takes μ-law.
    public func send(samples: [Int16], speech: SpeechActivity) async {
        await send(muLaw: G711.encode(samples, law: .muLaw), speech: speech)
    }

    public func dtmf(_ digit: Character) async {
        outbox.sendUrgent(.dtmf(track: "inbound_track", digit: digit))
    }

    /// The bot decides barge-in; the session only reports what was played.
    public func interrupt(item: String, playedMilliseconds: Int) async {}

    public func itemPlayed(_ item: String) async {
        let echoes = state.withLock { s -> [String] in
            s.unplayed.removeAll { $0 == item }
            return Self.releasedMarks(&s)
        }
        for name in echoes { outbox.sendUrgent(.mark(name)) }
    }

    /// The call is over: the bot gets `stop` and the socket is closed, as Twilio does, before
    /// the call's tasks are cancelled (bounded: a bot that stopped reading costs half a second).
    public func callEnded() async -> [String] {
        guard sendStop() else { return [] }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for await _ in self.stopGone {} }
            group.addTask { try? await Task.sleep(for: .milliseconds(500)) }
            await group.next()
            group.cancelAll()
        }
        return []
    }

    public func stop() async -> TaskTracker {
        sendStop()
        events.finish()
        return state.withLock { $0.tracker }
    }

    /// Queues `stop` once; false when it was queued already.
    @discardableResult
    private func sendStop() -> Bool {
        guard state.withLock({ s in defer { s.stopped = true }; return !s.stopped }) else { return false }
        outbox.sendUrgent(.stop)
        outbox.finish()
        return true
    }
}

struct EngineStartError: Error, CustomStringConvertible {
    let description: String
}
