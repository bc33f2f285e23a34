import Foundation
import Pipeline
import Realtime

extension CallSession {
    /// The end of the caller's speech opens a turn (and starts its latency clock).
    func noteTurn(_ frame: InboundFrame) {
        if frame.voice.event == .speechEnded { state.withLock { $0.timeline.speechEnded(at: .now) } }
    }

    /// A key press (RFC 4733 event or in-band tone) goes into the transcript as `[DTMF 1]`; a
    /// beep is logged and kept for the call's report.
    func noteTone(_ tone: ToneEvent) {
        state.withLock { $0.tones.append(tone) }
        switch tone {
        case .dtmf(let digit):
            appendTranscript(speaker: .customer, text: "[DTMF \(digit)]", item: nil)
        case .beep(let frequency, let milliseconds):
            logger.info("beep heard", metadata: ["call": "\(callID)", "hz": "\(frequency)", "ms": "\(milliseconds)"])
        }
    }

    /// A transcript line, stored as it happens; agent lines are tied to their audio item for latency.
    func appendTranscript(speaker: Speaker, text: String, item: String?) {
        let now = ContinuousClock.now
        let seconds = state.withLock { s in
            if speaker == .customer { s.timeline.transcript(at: now) }
            return s.answeredAt.duration(to: now).totalSeconds
        }
        let entry = TranscriptEntry(timestamp: (seconds * 100).rounded() / 100, speaker: speaker, text: text)
        let row = try? store.appendTranscript(callID: callID, seconds: entry.timestamp, speaker: speaker, text: text)
        state.withLock { s in
            s.transcript.append(entry)
            if let item, let row, speaker == .ai { s.agentLines[item] = row }
        }
    }

    /// The first audio of an agent item closes the turn begun by the caller's last speech end.
    func firstAudio(_ item: String) {
        let (latency, row) = state.withLock { s in (s.timeline.firstAudio(item: item, at: .now), s.agentLines[item]) }
        guard let latency else { return }
        metrics.turnLatency.recordMilliseconds(latency)
        if let row { try? store.setLatency(transcriptID: row, milliseconds: latency) }
    }
}
