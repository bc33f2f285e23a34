import Dialogue
import Foundation
import Logging
import Bridge
import Pipeline
import Realtime
import Tools
import Synchronization

/// One connected call: a leg (SIP or Twilio stream) ↔ the audio pipeline ↔ a conversation engine.
///
/// `run()` owns every task the call needs — the leg, caller audio in, agent audio out, the
/// duration limit — in one task group; when it returns, all of them have ended, the call is hung
/// up and the result is stored. Transcript lines and answers are written as they happen.
public final class CallSession: Sendable {
    public enum Ending: Sendable, Equatable {
        case remoteHangup
        /// The line went dead: nothing came from the caller's side for `sip.media_timeout`.
        case mediaTimeout
        case agentFinished
        case maxDuration
        case cancelled
        case engineFailure(String)
        /// An answering machine: hung up on (`machine_detection: hangup`).
        case voicemail
        /// An answering machine: a message was left after its greeting.
        case voicemailLeft
        /// The caller was handed to a person, who answered.
        case transferred
        /// A call screener answered and the person never came on (`CallScreener.Passage.screenedOut`).
        case screenedOut
        /// A phone menu led nowhere: no option toward the call's purpose or a person, or nobody after it.
        case menuGaveUp(MenuPassage.State)
    }

    public struct Outcome: Sendable {
        public var ending: Ending
        public var result: ConversationResult
        /// The report as stored when the call ended (its trace is made from the same one).
        public var report: CallReport
    }

    let callID: String
    let leg: any MediaStreamLeg
    let engine: any ConversationEngine
    let store: CallStore
    let recorder: CallRecorder?
    /// Says goodbye when the engine is lost (nil: the call just ends).
    let localVoice: LocalVoice?
    /// The caller side's VAD decides with Silero (`engine.vad: neural`); nil: the energy detector.
    let neuralVAD: SileroModel?
    /// Whether the caller side takes the agent's echo out (where the leg tells what it played).
    let echoCancellation: Bool
    /// `engine.hold_background_voices`.
    let holdBackgroundVoices: Bool
    /// Takes the line's noise out of the caller's audio before the VAD; nil: off.
    let noiseSuppression: NoiseSuppression?
    /// Speech over the agent this long holds it until the engine's verdict (engines that judge overlaps).
    let overlapHoldMilliseconds: Int
    /// What an answering machine gets; nil: no detection (the greeting goes out at once).
    let machineDetection: MachineDetection?
    /// How this call is handed to a person; nil: it cannot be.
    let transfer: CallTransfer?
    /// Set: transfers are warm (the person is called by us and briefed first).
    let warmTransfer: WarmTransfer?
    let context: ConversationContext
    let logger: Logger
    let metrics: CallMetrics
    /// Told each turn's latency (the manager's `CallAdmission` learns from it).
    let turnMeasured: @Sendable (Int) -> Void
    let pricing: Pricing
    /// What the call's timers wait on and its transcript and timings are stamped with.
    let clock: CallClock
    let playback = PlaybackTracker()
    /// Wakes the agent side's waits (`waitUntil`): rung when the audio played changes (a mark came
    /// back, a clear), and when the answering-machine detector decides or hears the greeting end.
    /// Those waits ran one after another on the agent side, each looking every 20 ms before.
    let agentSideAlarm: WakeAlarm
    /// Every stage and queue of this call's `CallPipeline`, metered.
    public let meters = PipelineMeters()
    let state = Mutex(State())
    private let endings: AsyncStream<Ending>
    private let endingInput: AsyncStream<Ending>.Continuation
    /// The answering-machine detector's verdicts, from the caller side to `actOnMachineVerdicts`.
    let verdicts: AsyncStream<AnsweringMachineDetector.Decision>
    let verdictInput: AsyncStream<AnsweringMachineDetector.Decision>.Continuation

    /// Where an agent utterance's transcript line is: its stored row and its place in `State.transcript`.
    struct AgentLine {
        var row: Int64?
        var index: Int
    }

    struct State {
        var answeredAt = ContinuousClock.now
        var transcript: [TranscriptEntry] = []
        var agentLines: [String: AgentLine] = [:]     // engine item → its transcript line, for latency and timing
        /// The caller's first speech start since their last transcript line.
        var callerSpeechStarted: ContinuousClock.Instant?
        var timeline = TurnTimeline(answeredAt: .now)
        var interruptedItems: Set<String> = []
        var clearGeneration = 0
        var closingReason: Ending?
        /// DTMF digits and beeps heard, in order.
        var tones: [ToneEvent] = []
        /// The operator's tools the agent called, in order.
        var toolCalls: [ToolCallRecord] = []
        var detector: AnsweringMachineDetector?
        /// A machine was recognized after the greeting went out; the agent side leaves the message.
        var machineMessagePending = false
        /// Whether caller audio goes to the engine: not while the greeting is held for the
        /// answering-machine verdict, nor once a message is being left.
        var engineHearsCaller = true
        /// The person's leg the caller is bridged to after a transfer VoiceBridge carries itself (B2BUA).
        var bridge: (any MediaStreamLeg)?
        /// When the last caller frame arrived (kept while detecting answering machines).
        var lastCallerFrameAt: ContinuousClock.Instant?
        /// The agent's audio is held while the engine judges the caller's speech over it.
        var agentHeld: ContinuousClock.Instant?
        /// The engine judges the caller's speech over the agent (`bargeInController`).
        var engineJudgesOverlaps = false
        var overlaps = CallReport.InterruptionCounts()
        /// Keys the agent pressed (a phone menu's options), with the seconds after answer.
        var keysSent: [CallReport.SentKey] = []
    }

    public init(callID: String, leg: any MediaStreamLeg, engine: any ConversationEngine, store: CallStore, recorder: CallRecorder?,
                context: ConversationContext, logger: Logger, metrics: CallMetrics = .none, pricing: Pricing = Pricing(), localVoice: LocalVoice? = nil,
                neuralVAD: SileroModel? = nil, holdBackgroundVoices: Bool = false, echoCancellation: Bool = false, noiseSuppression: NoiseSuppression? = nil, machineDetection: MachineDetection? = nil, transfer: CallTransfer? = nil,
                warmTransfer: WarmTransfer? = nil, overlapHoldMilliseconds: Int = 500, clock: CallClock = .continuous,
                turnMeasured: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.clock = clock
        agentSideAlarm = WakeAlarm(clock: clock)
        self.overlapHoldMilliseconds = overlapHoldMilliseconds
        self.metrics = metrics
        self.turnMeasured = turnMeasured
        self.pricing = pricing
        self.callID = callID
        self.leg = leg
        self.engine = engine
        self.store = store
        self.recorder = recorder
        self.localVoice = localVoice
        self.neuralVAD = neuralVAD
        self.holdBackgroundVoices = holdBackgroundVoices
        self.echoCancellation = echoCancellation
        self.noiseSuppression = noiseSuppression
        self.machineDetection = machineDetection
        self.transfer = transfer
        self.warmTransfer = warmTransfer
        self.context = context
        self.logger = logger
        (endings, endingInput) = AsyncStream.makeStream(of: Ending.self, bufferingPolicy: .bufferingOldest(8))
        (verdicts, verdictInput) = AsyncStream.makeStream(of: AnsweringMachineDetector.Decision.self, bufferingPolicy: .bufferingOldest(4))
        if let machineDetection {
            state.withLock { s in
                s.detector = AnsweringMachineDetector(settings: machineDetection.detector)
                s.engineHearsCaller = false
            }
        }
        CallPipeline.meterQueues(engine: engine, leg: leg, meters: meters)
    }

    /// Tones heard so far (DTMF digits from RFC 4733 events or the audio, beeps).
    public var tones: [ToneEvent] { state.withLock { $0.tones } }

    /// Turn latencies measured so far (end of caller speech → first agent audio), ms.
    public var turnLatencies: [Int] { state.withLock { $0.timeline.turns.compactMap(\.firstAudioMs) } }

    /// Asks the agent to close (closing line, then hang up); `reason` is what the call ends as.
    public func requestEnd(_ reason: Ending) {
        let first = state.withLock { s -> Bool in
            guard s.closingReason == nil else { return false }
            s.closingReason = reason
            return true
        }
        guard first else { return }
        Task { [engine] in await engine.close(reason: "\(reason)") }   // returns at once; the closing plays out in run()
    }

    func finish(_ ending: Ending) { endingInput.yield(ending) }

    /// How the call ends when the engine ends it, by the reason it gives: a screener's or a phone
    /// menu's own outcome, else the agent finished.
    static func ending(endCallReason reason: String) -> Ending {
        if reason == CallScreener.Passage.screenedOut.rawValue { return .screenedOut }
        if let state = MenuPassage.State(rawValue: reason), [.noRoute, .timedOut].contains(state) { return .menuGaveUp(state) }
        return .agentFinished
    }

    public func run() async -> Outcome {
        let answered = clock.now
        state.withLock { s in
            s.answeredAt = answered
            s.timeline = TurnTimeline(answeredAt: s.answeredAt)
        }
        var ending = Ending.remoteHangup
        var lastWords: [String] = []
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.leg.run() }
            group.addTask { await self.pumpCallerAudio() }
            group.addTask { await self.pumpEngineEvents() }
            if let recorder { group.addTask { await recorder.run() } }
            if machineDetection != nil { group.addTask { await self.actOnMachineVerdicts() } }
            if context.followsMenuPath { group.addTask { await self.pressMenuPath() } }
            // Started only now: its greeting goes into a bounded queue that pumpEngineEvents drains.
            group.addTask {
                do { try await self.engine.start() } catch { self.finish(.engineFailure("\(error)")) }
            }
            group.addTask {
                try? await self.clock.sleep(for: .seconds(self.context.maxDurationSeconds))
                guard !Task.isCancelled else { return }
                self.requestEnd(.maxDuration)
                // The closing line gets 15 s to play; then the call ends regardless.
                try? await self.clock.sleep(for: .seconds(15))
                if !Task.isCancelled { self.finish(.maxDuration) }
            }
            for await first in endings {
                ending = first
                break
            }
            await leg.hangUp()
            lastWords = await engineHearsTheLastWords()
            group.cancelAll()
        }
        for words in lastWords { await appendTranscript(speaker: .customer, text: words, item: nil) }
        endingInput.finish()
        verdictInput.finish()
        if ending == .agentFinished, let reason = state.withLock({ $0.closingReason }) { ending = reason }
        var tracker = await engine.stop()
        // Turned away by a call screener, or still waiting behind one when the line ended: the
        // person was never reached.
        if [.waiting, .screenedOut].contains(tracker.screener), [.remoteHangup, .mediaTimeout, .maxDuration, .agentFinished].contains(ending) {
            tracker.screener = .screenedOut
            ending = .screenedOut
        }
        // A phone menu the agent gave up on: the menu's own outcome, whoever hung up first.
        if let menu = tracker.menu?.state, [.noRoute, .timedOut].contains(menu), [.remoteHangup, .mediaTimeout, .agentFinished].contains(ending) {
            ending = .menuGaveUp(menu)
        }
        // A model engine's `search_knowledge` that found nothing: kept like a question the local engine passed on.
        for question in state.withLock({ $0.toolCalls.compactMap(\.passedOn) }) where !tracker.openQuestions.contains(question) {
            tracker.openQuestions.append(question)
        }
        let dropped = engine.events.counters.dropped
        if dropped > 0 { metrics.pipelineDrops.increment(by: dropped) }
        let (transcript, answeredAt) = state.withLock { ($0.transcript, $0.answeredAt) }
        let duration = Int(answeredAt.duration(to: clock.now).totalSeconds.rounded())
        let result = ConversationResult(tracker: tracker, transcript: transcript, durationSeconds: duration, context: context)
        do { try await store.saveResult(callID: callID, result: result, now: clock.date) } catch { logger.error("could not store the result", metadata: ["call": "\(callID)", "error": "\(error)"]) }
        let report = self.report
        do { try await store.saveReport(callID: callID, report: report, now: clock.date) } catch { logger.error("could not store the call's report", metadata: ["call": "\(callID)", "error": "\(error)"]) }
        if let recorder {
            let bytes = recorder.close()
            if recorder.droppedSeconds > 0 {
                logger.warning("the disk could not keep up: seconds of the recording were lost", metadata: ["call": "\(callID)", "seconds": "\(recorder.droppedSeconds)"])
            }
            try? await store.addRecording(callID: callID, path: recorder.path, bytes: bytes, durationSeconds: recorder.durationSeconds, now: clock.date)
        }
        return Outcome(ending: ending, result: result, report: report)
    }
}
