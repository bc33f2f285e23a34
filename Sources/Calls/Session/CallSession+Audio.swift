import Foundation
import Bridge
import Pipeline
import Realtime
import Synchronization

extension CallSession {
    /// Caller audio: μ-law → PCM → VAD (at 8 kHz, as the phone delivers it) → the engine's
    /// format; barge-in decisions on every frame; mark echoes become played time.
    ///
    /// A frame that needs nothing asynchronous (no barge-in action, an engine that can take it
    /// without waiting) is handled where it arrives — on the socket's event loop, through the leg's
    /// media handler — with no task switch; the rest come through `leg.events` to this task.
    func pumpCallerAudio() async {
        let upsampler: Resampler? = if case .pcm16(let rate) = engine.inputFormat, rate != 8000 { try? Resampler(from: 8000, to: rate) } else { nil }
        let caller = Mutex(CallerAudio(upsampler: upsampler))
        leg.setMediaHandler { [self] media in
            let frame = caller.withLock { process(media, &$0) }
            if frame.actions.isEmpty, case .pcm16 = engine.inputFormat,
               engine.sendNow(speech: frame.activity, samples: { caller.withLock { $0.toEngineRate(frame.pcm) } }) {
                return true
            }
            caller.withLock { $0.handled.append(frame) }   // the queued event stands for this frame
            return false
        }
        defer { leg.setMediaHandler(nil) }
        for await event in leg.events {
            switch event {
            case .media(let media):
                let frame = caller.withLock { c in c.handled.isEmpty ? process(media, &c) : c.handled.removeFirst() }
                for action in frame.actions { await perform(action) }
                switch engine.inputFormat {
                case .muLaw: await engine.send(muLaw: media.payload, speech: frame.activity)
                case .pcm16: await engine.send(samples: caller.withLock { $0.toEngineRate(frame.pcm) }, speech: frame.activity)
                }
                leg.mediaEventConsumed()
            case .mark(let name):
                // "item#ms#generation": marks flushed by a clear (older generation) were not heard.
                let parts = name.split(separator: "#")
                if parts.count == 3, let ms = Int(parts[1]), Int(parts[2]) == state.withLock({ $0.clearGeneration }) {
                    playback.played(item: String(parts[0]), milliseconds: ms)
                }
            case .stop:
                finish(.remoteHangup)
            case .start, .connected, .dtmf:
                break
            }
        }
        finish(.remoteHangup)
    }

    /// The caller side's per-frame state, shared by the two ways a frame is handled.
    struct CallerAudio: Sendable {
        var vad = VoiceActivityDetector()
        var bargeIn = BargeInController()
        let upsampler: Resampler?
        /// Frames the media handler processed but could not finish; each one's event is queued.
        var handled: [CallerFrame] = []

        mutating func toEngineRate(_ pcm: [Int16]) -> [Int16] { upsampler?.process(pcm) ?? pcm }
    }

    struct CallerFrame: Sendable {
        var pcm: [Int16]
        var activity: SpeechActivity
        var actions: [BargeInController.Action]
    }

    /// Decode, record, VAD, barge-in decision: everything about a frame that needs no waiting.
    func process(_ media: MediaStreamMedia, _ c: inout CallerAudio) -> CallerFrame {
        let pcm = G711.decode(media.payload, law: .muLaw)
        recorder?.caller(pcm)
        let decision = c.vad.process(AudioFrame(samples: pcm, sampleRate: 8000))
        let activity: SpeechActivity = switch decision.event {
        case .speechStarted?: .started
        case .speechEnded?: .ended
        case nil: decision.isSpeech ? .speech : .silence
        }
        if decision.event == .speechEnded { state.withLock { $0.speechEndedAt = .now } }
        return CallerFrame(pcm: pcm, activity: activity, actions: c.bargeIn.process(decision, playback: playback.snapshot))
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

    /// Agent events: audio → 8 kHz μ-law → the leg (which paces it), with a mark every 200 ms
    /// for played-time accounting; transcript lines and answers to the store as they come.
    func pumpEngineEvents() async {
        let rate: Int? = if case .pcm16(let r) = engine.outputFormat { r } else { nil }
        var downsampler = rate.flatMap { $0 == 8000 ? nil : try? Resampler(from: $0, to: 8000) }
        var chunker = FrameChunker(sampleRate: 8000)
        var unmarked: (item: String, ms: Int)?
        var started: Set<String> = []

        func sendFrames(_ frames: [AudioFrame], item: String) async {
            // A piece of agent audio can be seconds long (an echoed utterance, a TTS sentence):
            // a barge-in while it is being queued drops the rest of it, not only what was queued.
            let generation = state.withLock { $0.clearGeneration }
            for frame in frames {
                guard state.withLock({ $0.clearGeneration }) == generation else {
                    if unmarked?.item == item { unmarked = nil }
                    return
                }
                recorder?.agent(frame.samples)
                playback.queued(item: item, milliseconds: 20)
                await leg.send(.media(G711.encode(frame.samples, law: .muLaw)))
                unmarked = (item, (unmarked?.item == item ? unmarked!.ms : 0) + 20)
                if unmarked!.ms >= 200 { await mark() }
            }
        }
        func mark() async {
            guard let (item, ms) = unmarked else { return }
            unmarked = nil
            let generation = state.withLock { $0.clearGeneration }
            await leg.send(.mark("\(item)#\(ms)#\(generation)"))
        }
        func firstAudio(_ item: String) {
            guard started.insert(item).inserted else { return }
            let (ended, row) = state.withLock { s -> (ContinuousClock.Instant?, Int64?) in
                defer { s.speechEndedAt = nil }
                return (s.speechEndedAt, s.agentLines[item])
            }
            guard let ended else { return }
            let ms = Int(ended.duration(to: .now).totalMilliseconds)
            state.withLock { $0.latencies.append(ms) }
            metrics.turnLatency.recordMilliseconds(ms)
            if let row { try? store.setLatency(transcriptID: row, milliseconds: ms) }
        }

        while let event = await engine.nextEvent() {
            switch event {
            case .audio(let item, let samples):
                guard !state.withLock({ $0.interruptedItems.contains(item) }) else { continue }
                firstAudio(item)
                let narrow = downsampler?.process(samples) ?? samples
                await sendFrames(chunker.push(narrow), item: item)
            case .audioBytes(let item, let bytes):
                guard !state.withLock({ $0.interruptedItems.contains(item) }) else { continue }
                firstAudio(item)
                await sendFrames(chunker.push(G711.decode(bytes, law: .muLaw)), item: item)
            case .audioDone(let item):
                guard !state.withLock({ $0.interruptedItems.contains(item) }) else {
                    _ = downsampler?.flush()
                    chunker = FrameChunker(sampleRate: 8000)
                    continue
                }
                var tail = chunker.push(downsampler?.flush() ?? [])
                if let last = chunker.flush() { tail.append(last) }
                await sendFrames(tail, item: item)
                await mark()
                if let rate, rate != 8000 { downsampler = try? Resampler(from: rate, to: 8000) }
            case .transcript(let speaker, let text, let item):
                let seconds = state.withLock { $0.answeredAt.duration(to: .now).totalSeconds }
                let entry = TranscriptEntry(timestamp: (seconds * 100).rounded() / 100, speaker: speaker, text: text)
                let row = try? store.appendTranscript(callID: callID, seconds: entry.timestamp, speaker: speaker, text: text)
                state.withLock { s in
                    s.transcript.append(entry)
                    if let item, let row, speaker == .ai { s.agentLines[item] = row }
                }
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
