import Foundation
import Bridge
import Pipeline
import Realtime
import Tools
import Synchronization

extension CallSession {
    /// Caller audio through the caller side of `CallPipeline`, then to the engine; barge-in,
    /// tones and turn timing acted on; mark echoes become played time.
    func pumpCallerAudio() async {
        // The far end the canceller holds the line against: what the leg sends, tick by tick.
        var echo: EchoReference?
        if echoCancellation {
            let reference = EchoReference()
            if leg.observePlayout({ reference.sent($0) }) { echo = reference }
        }
        defer { if echo != nil { leg.observePlayout(nil) } }
        var denoise: NoiseSuppressor?
        do {
            denoise = try await noiseSuppression?.makeSuppressor()
        } catch {
            logger.warning("noise suppression is off for this call", metadata: ["call": "\(callID)", "error": "\(error)"])
        }
        do {
            let chain = try CallPipeline.callerSide(engineInput: engine.inputFormat, bargeIn: bargeInController(), recorder: recorder,
                                                    playback: playback, meters: meters, neuralVAD: neuralVAD, holdBackgroundVoices: holdBackgroundVoices,
                                                    echo: echo, denoise: denoise, clock: clock)
            await pumpCallerAudio(through: chain)
            _ = engine.judgeOverlaps(reporting: nil)
        } catch {
            finish(.engineFailure("the caller side of the pipeline could not be built: \(error)"))
        }
    }

    /// A frame that needs nothing asynchronous (no barge-in action, no tone, an engine that takes
    /// it without waiting) is handled where it arrives — on the socket's event loop, through the
    /// leg's media handler — with no task switch; the rest come through `leg.events` to this task.
    private func pumpCallerAudio<Chain: PipelineStage<LegFrame, InboundFrame>>(through chain: sending Chain) async {
        let caller = Mutex(CallerSide(chain: chain))
        let takesMuLaw = engine.inputFormat == .muLaw
        leg.setMediaHandler { [self] media in
            let frame = caller.withLock { $0.run(media) }
            noteTurn(frame)
            let (hears, person) = state.withLock { ($0.engineHearsCaller, $0.bridge) }
            if let person { _ = person.trySend([.media(media.payload)]) }   // a bridged call: the caller to the person
            // Bridged, the caller and the person talk over each other as people do: no barge-in.
            if frame.bargeIn.isEmpty || person != nil, frame.tones.isEmpty,
               !hears || (!takesMuLaw && engine.sendNow(speech: frame.activity, samples: { frame.engineSamples })) {
                return true
            }
            caller.withLock { $0.handled.append(frame) }   // the queued event stands for this frame
            return false
        }
        defer { leg.setMediaHandler(nil) }
        for await event in leg.events {
            switch event {
            case .media(let media):
                let (frame, fresh) = caller.withLock { c in
                    c.handled.isEmpty ? (c.run(media), true) : (c.handled.removeFirst(), false)
                }
                let person = state.withLock { $0.bridge }
                if fresh {
                    noteTurn(frame)
                    if let person { _ = person.trySend([.media(media.payload)]) }
                }
                if person == nil {
                    for action in frame.bargeIn { await perform(action) }
                }
                for tone in frame.tones {
                    if case .dtmf(let digit) = tone { await pressed(digit) } else { await noteTone(tone) }
                }
                if !engineHearsCaller {
                    // While the agent's greeting is held for the answering-machine verdict, the
                    // engine's output is not drained: feeding it would stall this pump behind it.
                } else if takesMuLaw {
                    await engine.send(muLaw: frame.payload, speech: frame.activity)
                } else {
                    await engine.send(samples: frame.engineSamples, speech: frame.activity)
                }
                leg.mediaEventConsumed()
            case .mark(let name):
                // Marks flushed by a clear (an older generation) were not heard.
                if let mark = MarkStage.parse(name), mark.generation == state.withLock({ $0.clearGeneration }) {
                    playback.played(item: mark.item, milliseconds: mark.milliseconds)
                    agentSideAlarm.ring()
                    if mark.isEnd { await engine.itemPlayed(mark.item) }
                }
            case .dtmf(_, let digit):
                await pressed(digit)
            case .stop:
                finish(leg.endedByMediaTimeout ? .mediaTimeout : .remoteHangup)
            case .start, .connected:
                break
            }
        }
        finish(leg.endedByMediaTimeout ? .mediaTimeout : .remoteHangup)
    }

    /// The caller side's chain and the frames the media handler ran but could not finish.
    struct CallerSide<Chain: PipelineStage<LegFrame, InboundFrame>> {
        var chain: Chain
        /// Frames the media handler processed but could not finish; each one's event is queued.
        var handled: [InboundFrame] = []

        /// Every caller-side stage is one frame in, one frame out.
        mutating func run(_ media: MediaStreamMedia) -> InboundFrame {
            var result: InboundFrame?
            chain.process(LegFrame(payload: media.payload, wideband: media.wideband, receivedAt: media.receivedAt)) { result = $0 }
            return result!
        }
    }

    /// A key press: into the transcript, and to the engine (a bot may act on it).
    private func pressed(_ digit: Character) async {
        await noteTone(.dtmf(digit: digit))
        await engine.dtmf(digit)
    }

    /// Interrupts the agent if it is talking; false when nothing was playing.
    @discardableResult
    func bargeIn() async -> Bool {
        let snapshot = playback.snapshot
        guard snapshot.isPlaying else { return false }
        for action in BargeInController.actions(interrupting: snapshot) { await perform(action) }
        return true
    }

    func perform(_ action: BargeInController.Action) async {
        switch action {
        case .flushOutbound:
            let snapshot = playback.snapshot
            let now = clock.now
            state.withLock { s in
                if let item = snapshot.currentItem {
                    s.interruptedItems.insert(item)
                    s.timeline.interrupted(item: item, heardMilliseconds: snapshot.currentItemHeardMilliseconds,
                                           generatedMilliseconds: snapshot.currentItemGeneratedMilliseconds, at: now)
                }
                s.clearGeneration += 1
            }
            playback.flushed()
            agentSideAlarm.ring()
        case .clearLeg:
            await leg.send(.clear)
        case .interruptEngine(let item, let played):
            await engine.interrupt(item: item, playedMilliseconds: played)
        case .overlapStarted:
            engine.callerSpeaksOverAgent()
        case .holdOutbound:
            holdAgent()
        }
    }
}

extension InboundFrame {
    /// The voice decision as engines take it.
    var activity: SpeechActivity {
        switch voice.event {
        case .speechStarted?: .started
        case .speechEnded?: .ended
        case nil: voice.isSpeech ? .speech : .silence
        }
    }
}
