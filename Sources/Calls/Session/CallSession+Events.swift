import Dialogue
import Foundation
import Pipeline
import Realtime

extension CallSession {
    /// How long the engine may take, once the call is over, to hear a turn the hang-up cut short
    /// (`ConversationEngine.callEnded`): a transcription takes 0.3–2 s here, several seconds on a
    /// loaded machine. Past it the call's end is stored without those words.
    static let lastWordsLimit: Duration = .seconds(10)

    /// The engine told the call is over; the words it heard only then (at most `lastWordsLimit`).
    func engineHearsTheLastWords() async -> [String] {
        await withTaskGroup(of: [String]?.self) { group in
            group.addTask { await self.engine.callEnded() }
            group.addTask {
                try? await self.clock.sleep(for: Self.lastWordsLimit)
                return nil
            }
            // The first to finish decides; the other is cancelled. (A cancelled sleep also returns
            // nil: looked at after the engine's words, it is not the limit coming.)
            let first = await group.next() ?? nil
            group.cancelAll()   // the engine returns what it has once cancelled
            if let words = first { return words }
            logger.warning("the engine had not heard the last words when the limit came", metadata: ["call": "\(callID)", "limit": "\(Self.lastWordsLimit)"])
            let partial = await group.next() ?? nil
            return partial ?? []
        }
    }

    /// The end of the caller's speech opens a turn (and starts its latency clock); the first
    /// speech start since the caller's last transcript line is when that line began to be heard.
    /// Until the agent's queued audio has been heard (its marks came back), at most `limit`.
    func waitForPlaybackToEnd(within limit: Duration) async {
        await waitUntil(clock.now.advanced(by: limit)) { !playback.snapshot.isPlaying }
    }

    /// Returns once `done()` holds, at `deadline`, or when the task is cancelled. `done` is looked
    /// at when the agent side's alarm rings (`agentSideAlarm`: the state it reads changed) and at
    /// `alsoAt()`, for a condition that also turns with time. One waiter at a time: the agent side's.
    func waitUntil(_ deadline: ContinuousClock.Instant, alsoAt: () -> ContinuousClock.Instant? = { nil }, _ done: () -> Bool) async {
        while !Task.isCancelled, !done(), clock.now < deadline {
            agentSideAlarm.arm(at: min(deadline, alsoAt() ?? deadline))
            await agentSideAlarm.wait()
        }
        agentSideAlarm.arm(at: nil)
    }

    func noteTurn(_ frame: InboundFrame) {
        observeForMachine(frame)
        // From when the leg took the frame in: one that waited behind a busy caller side would
        // otherwise start a turn's latency late (and time a transcript line late).
        let at = frame.receivedAt ?? clock.now
        switch frame.voice.event {
        case .speechEnded: state.withLock { $0.timeline.speechEnded(at: at) }
        case .speechStarted: state.withLock { s in if s.callerSpeechStarted == nil { s.callerSpeechStarted = at } }
        default: break
        }
    }

    /// A key press (RFC 4733 event or in-band tone) goes into the transcript as `[DTMF 1]`; a
    /// beep is logged and kept for the call's report.
    func noteTone(_ tone: ToneEvent) async {
        state.withLock { $0.tones.append(tone) }
        switch tone {
        case .dtmf(let digit):
            await appendTranscript(speaker: .customer, text: "[DTMF \(digit)]", item: nil, spoken: false)
        case .beep(let frequency, let milliseconds):
            logger.info("beep heard", metadata: ["call": "\(callID)", "hz": "\(frequency)", "ms": "\(milliseconds)"])
        }
    }

    /// A transcript line, stored as it happens, timed by when it began to be heard (seconds since
    /// answer, so the transcript lines up with the recording): a caller's words from their first
    /// speech start, an agent line for now from when the engine wrote it, moved to its first frame
    /// on the wire by `startedToBeHeard` — a reply is written ~1–2 s before it is heard.
    func appendTranscript(speaker: Speaker, text: String, item: String?, spoken: Bool = true) async {
        let now = clock.now
        let seconds = state.withLock { s in
            var heard = now
            if speaker == .customer, spoken {
                s.timeline.transcript(at: now)
                heard = s.callerSpeechStarted ?? now
                s.callerSpeechStarted = nil
            }
            return s.answeredAt.duration(to: heard).hundredthsOfSeconds
        }
        let entry = TranscriptEntry(timestamp: seconds, speaker: speaker, text: text)
        let row = try? await store.appendTranscript(callID: callID, seconds: entry.timestamp, speaker: speaker, text: text, now: clock.date)
        state.withLock { s in
            s.transcript.append(entry)
            if let item, speaker == .ai { s.agentLines[item] = .init(row: row, index: s.transcript.count - 1) }
        }
    }

    /// The first audio of an agent item closes the turn begun by the caller's last speech end.
    func firstAudio(_ item: String) async {
        let (latency, line) = state.withLock { s in (s.timeline.firstAudio(item: item, at: clock.now), s.agentLines[item]) }
        guard let latency else { return }
        metrics.turnLatency.recordMilliseconds(latency)
        turnMeasured(latency)
        if let row = line?.row { try? await store.setLatency(transcriptID: row, milliseconds: latency) }
    }

    /// An agent item's first frame went to the leg: its transcript line is timed from now.
    func startedToBeHeard(_ item: String) async {
        let now = clock.now
        let (line, seconds) = state.withLock { s -> (AgentLine?, Double) in
            s.timeline.firstFrame(item: item, at: now)
            let seconds = s.answeredAt.duration(to: now).hundredthsOfSeconds
            guard let line = s.agentLines[item], s.transcript.indices.contains(line.index) else { return (nil, seconds) }
            s.transcript[line.index].timestamp = seconds
            return (line, seconds)
        }
        if let row = line?.row { try? await store.setHeardAt(transcriptID: row, seconds: seconds) }
    }
}
