import Foundation
import Bridge
import Dialogue
import Pipeline
import Realtime
import Tools
import Synchronization

extension CallSession {
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

    /// The agent side's chains and what they are working on. The engine task owns it; an engine
    /// with immediate output (loopback) may run it where the caller's frame arrived, but only
    /// when that task has nothing in hand, so agent audio keeps its order.
    struct AgentSide<Audio: PipelineStage<EncodedAudio, AudioFrame>, Frames: PipelineStage<OutboundFrame, MediaStreamCommand>> {
        var audio: Audio
        var frames: Frames
        /// Items whose first audio was seen (the turn's latency is taken there).
        var started: Set<String> = []
        /// The item whose first frame went to the leg last.
        var framedItem: String?
        var pending: [AudioFrame] = []
        /// Engine events the engine task has finished with.
        var processed = 0
    }

    private func pumpEngineEvents<Audio: PipelineStage<EncodedAudio, AudioFrame>,
                                  Frames: PipelineStage<OutboundFrame, MediaStreamCommand>>(
        audio: sending Audio, frames: sending Frames
    ) async {
        let agent = Mutex(AgentSide(audio: audio, frames: frames))
        let rate = engine.outputFormat.sampleRate ?? 8000
        engine.setImmediateOutput { [self] event in
            guard case .audio(let item, let samples) = event else { return false }
            return agent.withLock { a -> Bool in
                // Only when every queued event was played (order) and the leg has room for this
                // piece's frames and marks (all or none).
                let queue = engine.events.counters
                guard queue.dequeued == a.processed, queue.enqueued == queue.dequeued + queue.dropped + queue.flushed,
                      a.started.contains(item), leg.outboundRoom >= 2 * (samples.count * 8000 / rate / 160 + 2),
                      !state.withLock({ $0.interruptedItems.contains(item) }) else { return false }
                a.audio.process(.pcm(samples)) { a.pending.append($0) }
                var commands: [MediaStreamCommand] = []
                for frame in a.pending { a.frames.process(OutboundFrame(item: item, audio: frame)) { commands.append($0) } }
                a.pending.removeAll(keepingCapacity: true)
                if !leg.trySend(commands) {
                    // Cannot happen while the room was checked and this is the only producer.
                    logger.warning("the leg refused agent audio it had room for", metadata: ["call": "\(callID)"])
                }
                return true
            }
        }
        defer { engine.setImmediateOutput(nil) }

        /// The cut: frames made from one piece of agent audio go to the leg one by one; a
        /// barge-in while they are being queued drops the rest (a piece can be seconds long).
        func play(_ item: String) async {
            let generation = state.withLock { $0.clearGeneration }
            var next = 0
            while true {
                var firstFrameOfItem = false
                let commands = agent.withLock { a -> [MediaStreamCommand]? in
                    guard next < a.pending.count else { a.pending.removeAll(keepingCapacity: true); return nil }
                    guard state.withLock({ $0.clearGeneration }) == generation else {
                        a.frames.handle(.interrupt) { _ in }
                        a.pending.removeAll(keepingCapacity: true)
                        return nil
                    }
                    var commands: [MediaStreamCommand] = []
                    a.frames.process(OutboundFrame(item: item, audio: a.pending[next])) { commands.append($0) }
                    next += 1
                    if a.framedItem != item {
                        a.framedItem = item
                        firstFrameOfItem = true
                    }
                    return commands
                }
                if firstFrameOfItem { await startedToBeHeard(item) }
                guard let commands else { return }
                for command in commands { await leg.send(command) }
            }
        }
        func isInterrupted(_ item: String) -> Bool { state.withLock { $0.interruptedItems.contains(item) } }
        func take(_ piece: EncodedAudio, of item: String) async {
            if agent.withLock({ $0.started.insert(item).inserted }) { await firstAudio(item) }
            agent.withLock { a in a.audio.process(piece) { a.pending.append($0) } }
        }

        /// Words the engine does not say — the apology when it is lost, a message for an answering
        /// machine — synthesized here, through the same frames chain (recorded, paced, marked),
        /// and the time to hear them (bounded). False when there is no local voice.
        @discardableResult
        func sayLocally(_ text: String, item: String) async -> Bool {
            guard let voice = localVoice, let frames = try? await voice.frames(saying: text) else { return false }
            await appendTranscript(speaker: .ai, text: text, item: item)
            agent.withLock { a in
                a.frames.handle(.interrupt) { _ in }   // whatever the engine left half-said
                a.pending = frames
            }
            await play(item)
            for command in agent.withLock({ a in a.frames.outputs(for: .end) }) { await leg.send(command) }
            await waitForPlaybackToEnd(within: .seconds(15))
            return true
        }

        /// A phone menu's option: each key as an RFC 4733 event where the leg carries them, else
        /// its tone through the frames chain (recorded, paced); 200 ms apart either way. Written to
        /// the transcript as the caller's keys are ("[DTMF 2]").
        func press(_ keys: String) async {
            for key in keys {
                let seconds = connectedSeconds
                await appendTranscript(speaker: .ai, text: PromptBuilder.keyPress(key), item: nil)
                if leg.sendKey(key) {
                    state.withLock { $0.keysSent.append(.init(key: String(key), seconds: seconds, how: .rfc4733)) }
                    try? await clock.sleep(for: .milliseconds(200))
                    continue
                }
                state.withLock { $0.keysSent.append(.init(key: String(key), seconds: seconds, how: .tone)) }
                var chunker = FrameChunker(sampleRate: 8000)
                let tone = chunker.push(DTMFTone.samples(for: key)) + [chunker.flush()].compactMap { $0 }
                agent.withLock { a in
                    a.frames.handle(.interrupt) { _ in }
                    a.pending = tone
                }
                await play(PlaybackTracker.keyToneItem(key))
                for command in agent.withLock({ a in a.frames.outputs(for: .end) }) { await leg.send(command) }
            }
        }

        /// An answering machine and `leave_message`: after its beep (or the end of its greeting),
        /// the message instead of anything the engine has to say, then the end.
        func leaveMessage() async {
            state.withLock { $0.engineHearsCaller = false }   // the engine is done: its output is no longer drained
            await bargeIn()
            guard let text = await waitForMachineGreetingToEnd() else { return }
            if await sayLocally(text, item: "voicemail-message") {
                finish(.voicemailLeft)
            } else {
                logger.warning("no local voice to leave a message with: hanging up", metadata: ["call": "\(callID)"])
                finish(.voicemail)
            }
        }

        /// B2BUA: the person's audio to the caller through the same frames chain (recorded as the
        /// agent's side, paced, marked); the caller's audio goes to the person from the caller
        /// side. Until either hangs up. A warm transfer's person is briefed first and bridged only
        /// if they accept: false when they did not (the agent has the caller back).
        func relay(_ person: any MediaStreamLeg, briefing: (text: String, settings: WarmTransfer.Settings, target: String)? = nil) async -> Bool {
            defer { state.withLock { $0.bridge = nil } }
            return await withTaskGroup(of: Void.self) { group -> Bool in
                group.addTask { await person.run() }
                var events = person.events.makeAsyncIterator()
                if let briefing {
                    guard await personAccepts(person, events: &events, briefing: briefing.text, settings: briefing.settings) else {
                        await person.hangUp()
                        group.cancelAll()
                        return false
                    }
                    await transferAccepted(target: briefing.target)
                }
                state.withLock { $0.bridge = person }
                events: while let event = await events.next() {
                    // The operator's cancel ends the bridge too (the engine, which would say the
                    // closing line, is not being heard from meanwhile).
                    guard !Task.isCancelled, state.withLock({ $0.closingReason }) == nil else { break }
                    switch event {
                    case .media(let media):
                        let frame = AudioFrame(samples: G711.decode(media.payload, law: .muLaw), sampleRate: 8000)
                        agent.withLock { $0.pending.append(frame) }
                        await play("person")
                        person.mediaEventConsumed()
                    case .stop:
                        break events
                    default:
                        continue
                    }
                }
                await person.hangUp()
                group.cancelAll()
                return true
            }
        }

        // The greeting waits for the answering-machine verdict (when the call detects one).
        switch await holdGreetingForVerdict() {
        case .greet: state.withLock { $0.engineHearsCaller = true }
        case .leaveMessage: await leaveMessage(); return
        case .stop: return
        }
        while let event = await engine.nextEvent() {
            defer { agent.withLock { $0.processed += 1 } }
            if machineMessagePending {   // recognized late, by a beep or the machine's words
                await leaveMessage()
                return
            }
            switch event {
            case .audio(let item, let samples):
                guard !isInterrupted(item) else { continue }
                await take(.pcm(samples), of: item)
                await play(item)
            case .audioBytes(let item, let bytes):
                guard !isInterrupted(item) else { continue }
                await take(.muLaw(bytes), of: item)
                await play(item)
            case .audioDone(let item):
                guard !isInterrupted(item) else {
                    agent.withLock { $0.audio.handle(.flush) { _ in } }
                    continue
                }
                agent.withLock { a in a.audio.handle(.end) { a.pending.append($0) } }
                await play(item)
                let marks = agent.withLock { a in a.frames.outputs(for: .end) }
                for command in marks { await leg.send(command) }
            case .transcript(let speaker, let text, let item):
                await appendTranscript(speaker: speaker, text: text, item: item)
                if speaker == .customer { observeForMachine(words: text) }
            case .taskState(let tracker):
                try? await store.saveAnswers(callID: callID, answers: tracker.answers, now: clock.date)
            case .milestone(let milestone, let at):
                state.withLock { $0.timeline.milestone(milestone, at: at) }
            case .toolCalled(let record):
                state.withLock { $0.toolCalls.append(record) }
                await appendTranscript(speaker: .ai, text: record.transcriptLine, item: nil)
            case .speechStarted:
                // The engine heard the caller (server VAD): barge in at once if the agent is talking —
                // unless the engine judges speech over the agent by its words (our VAD holds it meanwhile).
                if !state.withLock({ $0.engineJudgesOverlaps }) { await bargeIn() }
            case .clearAudio(let items):
                // The engine's own barge-in (a bot's `clear`): these items' audio still queued
                // behind this event is skipped, and what is playing stops now.
                state.withLock { $0.interruptedItems.formUnion(items) }
                if await !bargeIn() { await leg.send(.clear) }
            case .transfer(let reason, _):
                switch await transferCall(reason: reason) {
                case .over: return
                case .backToTheAgent: break
                case .bridge(let person):
                    _ = await relay(person)
                    finish(state.withLock { $0.closingReason } ?? .transferred)
                    return
                case .brief(let person, let target, let text):
                    if await relay(person, briefing: (text, warmTransfer?.settings ?? WarmTransfer.Settings(), target)) {
                        finish(state.withLock { $0.closingReason } ?? .transferred)
                        return
                    }
                    _ = await warmTransferEnded(target: target, outcome: .declined)
                }
            case .endCall(let reason, _):
                // Let the goodbye play out (bounded), then hang up.
                await waitForPlaybackToEnd(within: .seconds(20))
                logger.info("agent ended the call", metadata: ["call": "\(callID)", "reason": "\(reason)"])
                finish(Self.ending(endCallReason: reason))
                return
            case .sendKeys(let keys):
                await press(keys)
            case .error(let message, let fatal):
                logger.warning("engine error", metadata: ["call": "\(callID)", "error": "\(message)", "fatal": "\(fatal)"])
                metrics.engineErrors.increment()
                if fatal {
                    await sayLocally(LocalVoice.apology + " " + context.closing, item: "local-goodbye")
                    finish(.engineFailure(message))
                    return
                }
            }
        }
    }
}
