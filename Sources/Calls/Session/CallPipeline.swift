import Bridge
import Pipeline
import Realtime

/// A call's whole media path, declared in one place. Every call runs it — SIP legs and Twilio
/// streams (both deliver 20 ms μ-law `media` events), every engine mode — and `make bench`
/// measures it (frame cost through these same builders; media streams through a server).
///
/// ```
/// caller side — where the frame arrives (the socket's event loop) when nothing needs waiting:
///   leg media ─► decode(μ-law) ─► record(caller) ─► [echo] ─► [denoise] ─► vad ─► tones ─► barge-in ─► resample(8k→engine) ─► engine
///   ([echo]: with `engine.echo_cancellation`, the agent's audio as the leg sent it taken out;
///    [denoise]: the line's noise, by DeepFilterNet3, on calls whose `noise_suppression` (or their
///    template's, else `engine.noise_suppression`) is on; the recording keeps what the caller sent)
///   (vad: Silero, or the energy detector; with `engine.hold_background_voices` and Silero, speech
///    must stand above the voices behind the caller, `BackgroundSpeechFloor`)
///   (a wideband leg — the dashboard's microphone — also carries its 16 kHz audio, which a 16 kHz
///   engine takes instead of the phone band: every stage before it works on the μ-law as for a phone)
///
/// agent side — the call's engine task:
///   engine events ═[queue: 64 events, suspends the engine]═► decode(engine format) ─► resample(engine→8k, 20 ms)
///     ─► ✂ barge-in cuts here ─► record(agent) ─► playback ─► encode(μ-law) ─► marks(every 200 ms)
///     ═[leg queue: 500 ms, suspends the pump]═► pacer (20 ms, shared media tick) ─► leg
/// ```
///
/// Synchronous stages are fused with `then` (one specialised call chain, no queue, no task hop);
/// queues stand only where a policy is needed, and their counters are shown with the stages'.
/// Adding a step is one line here. Every stage is metered (`PipelineMeters`): frames in and out,
/// drops, time per frame — per call in its report, summed by stage on `/metrics`.
public enum CallPipeline {
    /// The caller side: one `InboundFrame` out per 20 ms μ-law payload in, carrying what every
    /// stage decided (voice activity, tones, barge-in actions, the audio at the engine's rate).
    /// `bargeIn` nil: the caller never cuts the agent (a loopback call).
    public static func callerSide(engineInput: EngineAudioFormat, bargeIn: BargeInController?, recorder: CallRecorder?,
                                  playback: PlaybackTracker, meters: PipelineMeters, neuralVAD: SileroModel? = nil, holdBackgroundVoices: Bool = false,
                                  echo: EchoReference? = nil,
                                  denoise: NoiseSuppressor? = nil, clock: CallClock = .continuous) throws -> some PipelineStage<LegFrame, InboundFrame> {
        let side = "caller"
        var vad = VoiceActivityDetector.Configuration()
        // Only Silero tells voices from noise; the floor is voices by its word.
        if holdBackgroundVoices, neuralVAD != nil { vad.background = BackgroundSpeechFloor.Settings() }
        let echoStage: OptionalStage<MeteredStage<EchoCancelStage>> = echo.map { .on(meters.stage("echo", side: side, EchoCancelStage(reference: $0))) } ?? .off
        let denoiseStage: OptionalStage<MeteredStage<NoiseSuppressStage>> = denoise.map { .on(meters.stage("denoise", side: side, NoiseSuppressStage(suppressor: $0))) } ?? .off
        return meters.stage("decode", side: side, LegDecodeStage())
            .then(meters.stage("record", side: side, TapStage<InboundFrame> { recorder?.caller($0.audio.samples, waited: $0.receivedAt.map { $0.duration(to: clock.now) } ?? .zero) }))
            .then(echoStage)
            .then(denoiseStage)
            .then(meters.stage("vad", side: side, VADStage(configuration: vad, neural: neuralVAD)))
            .then(meters.stage("tones", side: side, ToneDetectorStage()))
            .then(meters.stage("barge-in", side: side, BargeInStage(playback: playback, controller: bargeIn)))
            .then(meters.stage("resample", side: side, try EngineRateStage(sampleRate: engineInput.sampleRate)))
    }

    /// The agent side up to the cut: engine audio of any length → 8 kHz 20 ms frames. `end`
    /// (the utterance is complete) flushes the resampler's tail; `flush` drops it.
    public static func agentAudio(engineOutput: EngineAudioFormat, meters: PipelineMeters) throws -> some PipelineStage<EncodedAudio, AudioFrame> {
        let side = "agent"
        return meters.stage("decode", side: side, PCMDecodeStage())
            .then(meters.stage("resample", side: side, try ResampleStage(from: engineOutput.sampleRate ?? 8000, to: 8000)))
    }

    /// The agent side after the cut: one frame → its `media` command, and a `mark` after every
    /// 200 ms of an item (`end`: after the item's last frame; `interrupt`: the unmarked rest was
    /// not heard). `generation` is the session's clear count, carried in the mark.
    public static func agentFrames(recorder: CallRecorder?, playback: PlaybackTracker, generation: @escaping @Sendable () -> Int,
                                   meters: PipelineMeters) -> some PipelineStage<OutboundFrame, MediaStreamCommand> {
        let side = "agent"
        return meters.stage("record", side: side, TapStage<OutboundFrame> { recorder?.agent($0.audio.samples) })
            .then(meters.stage("playback", side: side, TapStage<OutboundFrame> { playback.queued(item: $0.item, milliseconds: AudioFrame.durationMilliseconds) }))
            .then(meters.stage("encode", side: side, G711EncodeStage(law: .muLaw)))
            .then(meters.stage("marks", side: side, MarkStage(generation: generation)))
    }

    /// The queues of the path, shown with the stages.
    public static func meterQueues(engine: any ConversationEngine, leg: any MediaStreamLeg, meters: PipelineMeters) {
        meters.queue("engine-queue", side: "agent") { engine.events.meterCounters }
        meters.queue("leg-queue", side: "agent") { leg.outboundQueueCounters ?? (0, 0, 0, 0) }
    }
}

extension EngineAudioFormat {
    /// The PCM rate, or nil for μ-law.
    public var sampleRate: Int? {
        if case .pcm16(let rate) = self { rate } else { nil }
    }
}

/// Encoded agent frames → `media` commands, with a `mark` named `item#ms#generation` after every
/// 200 ms of an item: the leg echoes it once played, and that echo is the played-time truth. An
/// item's last mark (`end`) is `item#ms#generation#end`, so its echo says the whole item was heard.
public struct MarkStage: PipelineStage {
    static let markEveryMilliseconds = 200
    private let generation: @Sendable () -> Int
    private var unmarked: (item: String, ms: Int)?
    /// The item of the last frame, for the end mark of an item whose last mark was just sent.
    private var lastItem: String?

    public init(generation: @escaping @Sendable () -> Int) { self.generation = generation }

    public mutating func process(_ frame: OutboundFrame, emit: (MediaStreamCommand) -> Void) {
        emit(.media(frame.payload))
        lastItem = frame.item
        let ms = (unmarked?.item == frame.item ? unmarked!.ms : 0) + AudioFrame.durationMilliseconds
        unmarked = (frame.item, ms)
        if ms >= Self.markEveryMilliseconds { mark(emit) }
    }

    public mutating func handle(_ control: ControlEvent, emit: (MediaStreamCommand) -> Void) {
        switch control {
        case .end: mark(emit, end: true)
        case .interrupt, .flush: unmarked = nil; lastItem = nil
        }
    }

    private mutating func mark(_ emit: (MediaStreamCommand) -> Void, end: Bool = false) {
        guard let (item, ms) = unmarked ?? (end ? lastItem.map { ($0, 0) } : nil) else { return }
        unmarked = nil
        if end { lastItem = nil }
        emit(.mark("\(item)#\(ms)#\(generation())" + (end ? "#end" : "")))
    }

    /// A mark echoed by the leg, read back: nil for a name this stage did not make.
    public static func parse(_ name: String) -> (item: String, milliseconds: Int, generation: Int, isEnd: Bool)? {
        let parts = name.split(separator: "#")
        guard parts.count == 3 || (parts.count == 4 && parts[3] == "end"), let ms = Int(parts[1]), let generation = Int(parts[2]) else { return nil }
        return (String(parts[0]), ms, generation, parts.count == 4)
    }
}
