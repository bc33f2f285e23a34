import Foundation
import Bridge
import Pipeline
import Realtime
import Synchronization

extension CallSession {
    /// Caller audio through the caller side of `CallPipeline`, then to the engine; barge-in,
    /// tones and turn timing acted on; mark echoes become played time.
    func pumpCallerAudio() async {
        do {
            let chain = try CallPipeline.callerSide(engineInput: engine.inputFormat, bargeIn: engine.allowsBargeIn, recorder: recorder,
                                                    playback: playback, meters: meters)
            await pumpCallerAudio(through: chain)
        } catch {
            finish(.engineFailure("the caller side of the pipeline could not be built: \(error)"))
        }
    }

    /// A frame that needs nothing asynchronous (no barge-in action, no tone, an engine that takes
    /// it without waiting) is handled where it arrives — on the socket's event loop, through the
    /// leg's media handler — with no task switch; the rest come through `leg.events` to this task.
    private func pumpCallerAudio<Chain: PipelineStage<[UInt8], InboundFrame>>(through chain: sending Chain) async {
        let caller = Mutex(CallerSide(chain: chain))
        let takesMuLaw = engine.inputFormat == .muLaw
        leg.setMediaHandler { [self] media in
            let frame = caller.withLock { $0.run(media.payload) }
            noteTurn(frame)
            if frame.bargeIn.isEmpty, frame.tones.isEmpty, !takesMuLaw,
               engine.sendNow(speech: frame.activity, samples: { frame.engineSamples }) {
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
                    c.handled.isEmpty ? (c.run(media.payload), true) : (c.handled.removeFirst(), false)
                }
                if fresh { noteTurn(frame) }
                for action in frame.bargeIn { await perform(action) }
                for tone in frame.tones { noteTone(tone) }
                if takesMuLaw {
                    await engine.send(muLaw: frame.payload, speech: frame.activity)
                } else {
                    await engine.send(samples: frame.engineSamples, speech: frame.activity)
                }
                leg.mediaEventConsumed()
            case .mark(let name):
                // "item#ms#generation": marks flushed by a clear (older generation) were not heard.
                let parts = name.split(separator: "#")
                if parts.count == 3, let ms = Int(parts[1]), Int(parts[2]) == state.withLock({ $0.clearGeneration }) {
                    playback.played(item: String(parts[0]), milliseconds: ms)
                }
            case .dtmf(_, let digit):
                noteTone(.dtmf(digit: digit))
            case .stop:
                finish(.remoteHangup)
            case .start, .connected:
                break
            }
        }
        finish(.remoteHangup)
    }

    /// The caller side's chain and the frames the media handler ran but could not finish.
    struct CallerSide<Chain: PipelineStage<[UInt8], InboundFrame>> {
        var chain: Chain
        /// Frames the media handler processed but could not finish; each one's event is queued.
        var handled: [InboundFrame] = []

        /// Every caller-side stage is one frame in, one frame out.
        mutating func run(_ payload: [UInt8]) -> InboundFrame {
            var result: InboundFrame?
            chain.process(payload) { result = $0 }
            return result!
        }
    }

    func perform(_ action: BargeInController.Action) async {
        switch action {
        case .flushOutbound:
            state.withLock { s in
                if let item = playback.snapshot.currentItem { s.interruptedItems.insert(item) }
                s.clearGeneration += 1
            }
            playback.flushed()
        case .clearLeg:
            await leg.send(.clear)
        case .interruptEngine(let item, let played):
            await engine.interrupt(item: item, playedMilliseconds: played)
        }
    }

    /// Agent events through the agent side of `CallPipeline` to the leg (which paces them);
    /// transcript lines and answers to the store as they come.
    func pumpEngineEvents() async {
        do {
            let audio = try CallPipeline.agentAudio(engineOutput: engine.outputFormat, meters: meters)
            let frames = CallPipeline.agentFrames(recorder: recorder, playback: playback,
                                                  generation: { [self] in state.withLock { $0.clearGeneration } }, meters: meters)
            await pumpEngineEvents(audio: audio, frames: frames)
        } catch {
            finish(.engineFailure("the agent side of the pipeline could not be built: \(error)"))
        }
    }

    private func pumpEngineEvents<Audio: PipelineStage<EncodedAudio, AudioFrame>, Frames: PipelineStage<OutboundFrame, MediaStreamCommand>>(
        audio: Audio, frames: Frames
    ) async {
        var audio = audio
        var frames = frames
        var started: Set<String> = []
        var pending: [AudioFrame] = []
        var commands: [MediaStreamCommand] = []

        /// The cut: frames made from one piece of agent audio go to the leg one by one; a
        /// barge-in while they are being queued drops the rest (a piece can be seconds long).
        func play(_ item: String) async {
            defer { pending.removeAll(keepingCapacity: true) }
            let generation = state.withLock { $0.clearGeneration }
            for frame in pending {
                guard state.withLock({ $0.clearGeneration }) == generation else {
                    frames.handle(.interrupt) { _ in }
                    return
                }
                commands.removeAll(keepingCapacity: true)
                frames.process(OutboundFrame(item: item, audio: frame)) { commands.append($0) }
                for command in commands { await leg.send(command) }
            }
        }
        func isInterrupted(_ item: String) -> Bool { state.withLock { $0.interruptedItems.contains(item) } }

        while let event = await engine.nextEvent() {
            switch event {
            case .audio(let item, let samples):
                guard !isInterrupted(item) else { continue }
                firstAudio(item, &started)
                audio.process(.pcm(samples)) { pending.append($0) }
                await play(item)
            case .audioBytes(let item, let bytes):
                guard !isInterrupted(item) else { continue }
                firstAudio(item, &started)
                audio.process(.muLaw(bytes)) { pending.append($0) }
                await play(item)
            case .audioDone(let item):
                guard !isInterrupted(item) else {
                    audio.handle(.flush) { _ in }
                    continue
                }
                audio.handle(.end) { pending.append($0) }
                await play(item)
                commands.removeAll(keepingCapacity: true)
                frames.handle(.end) { commands.append($0) }
                for command in commands { await leg.send(command) }
            case .transcript(let speaker, let text, let item):
                appendTranscript(speaker: speaker, text: text, item: item)
            case .taskState(let tracker):
                try? store.saveAnswers(callID: callID, answers: tracker.answers)
            case .speechStarted:
                // The engine heard the caller (server VAD): barge in at once if the agent is talking.
                let snapshot = playback.snapshot
                if snapshot.isPlaying {
                    await perform(.flushOutbound)
                    await perform(.clearLeg)
                    if let item = snapshot.currentItem, snapshot.currentItemPlayedMilliseconds > 0 {
                        await perform(.interruptEngine(item: item, playedMilliseconds: min(snapshot.currentItemPlayedMilliseconds, snapshot.currentItemGeneratedMilliseconds)))
                    }
                }
            case .endCall(let reason, _):
                // Let the goodbye play out (bounded), then hang up.
                let deadline = ContinuousClock.now.advanced(by: .seconds(20))
                while playback.snapshot.isPlaying, ContinuousClock.now < deadline, !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(20))
                }
                logger.info("agent ended the call", metadata: ["call": "\(callID)", "reason": "\(reason)"])
                finish(.agentFinished)
                return
            case .error(let message, let fatal):
                logger.warning("engine error", metadata: ["call": "\(callID)", "error": "\(message)", "fatal": "\(fatal)"])
                metrics.engineErrors.increment()
                if fatal { finish(.engineFailure(message)); return }
            }
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
