import Foundation
import HummingbirdWSClient
import Pipeline

/// Speech over the agent, judged by its words (the session's `judgeOverlaps`), and the replies the
/// engine asks for itself. The server VAD is told to neither cut nor answer (`interrupt_response`,
/// `create_response` off): a caller item committed while the agent talked waits for its
/// transcription — words cut the agent (as a barge-in: truncate, cancel) and get a reply; a
/// backchannel or no words are deleted from the conversation and the agent plays on. Any other
/// committed item gets its reply at once.
extension OpenAIRealtimeEngine {
    struct OverlapState {
        /// Whom to tell; speech the session saw start over the agent before the server VAD did.
        var watch = OverlapWatch(unheardAfter: OpenAIRealtimeEngine.unheardOverlap)
        /// The server VAD's speech in progress (started, not yet committed).
        var speakingItem: String?
        /// Caller items that began over the agent, awaiting their words.
        var items: Set<String> = []
        /// A response is being generated (`response.created` … `response.done`).
        var responseActive = false
    }

    /// How long a session's mark waits for the server VAD to start the same speech: it hears later
    /// than our VAD (prefix padding, the trip) — or not at all, when the sound held no speech.
    static let overlapPairing: Duration = .milliseconds(1500)
    /// After our VAD ended it, speech the server VAD never started held no words.
    static let unheardOverlap: Duration = .seconds(1)

    public func judgeOverlaps(reporting handler: (@Sendable (OverlapVerdict) async -> Void)?) -> Bool {
        state.withLock { $0.overlap.watch.handler = handler }
        return true
    }

    public func callerSpeaksOverAgent() {
        state.withLock { s in
            if let item = s.overlap.speakingItem { s.overlap.items.insert(item) } else { s.overlap.watch.mark() }
        }
    }

    /// `input_audio_buffer.speech_started`: part of an overlap if the session marked one just before.
    func speechStarted(_ item: String?) {
        state.withLock { s in
            s.overlap.speakingItem = item
            if let item, let marked = s.overlap.watch.markedAt, marked.duration(to: VirtualTimeExecutor.now) < Self.overlapPairing { s.overlap.items.insert(item) }
            s.overlap.watch.clear()
        }
    }

    /// `input_audio_buffer.committed`: an overlap waits for its words; anything else is a turn to
    /// answer now (cancelling a response still being written, as the server's own VAD would).
    func committed(_ item: String) async {
        let (overlap, active, writer) = state.withLock { s in
            s.overlap.speakingItem = nil
            return (s.overlap.items.contains(item), s.overlap.responseActive, s.writer)
        }
        guard !overlap, let writer else { return }
        if active { try? await writer.write(.text(RealtimeClientEvent.responseCancel)) }
        try? await writer.write(.text(RealtimeClientEvent.responseCreate()))
    }

    /// The verdict on a caller item that began over the agent, given its words (nil: it could not be
    /// transcribed — taken as words, the model hears the audio itself); nil for any other item. A
    /// backchannel or no words is settled here: the item is deleted and the agent plays on. Words
    /// are a turn: its line goes out as any other, then `takeTurnOverAgent()`.
    func judgeOverlap(_ item: String, words: String?) async -> OverlapVerdict? {
        let handler = state.withLock { s in s.overlap.items.remove(item) == nil ? nil : Optional(s.overlap.watch.handler) }
        guard let handler else { return nil }
        let verdict = words.map { OverlapVerdict.judging($0, minimumWords: settings.overlapMinimumWords) } ?? .interruption
        if verdict != .interruption {
            try? await state.withLock({ $0.writer })?.write(.text(RealtimeClientEvent.deleteItem(item)))
            await handler?(verdict)
        }
        return verdict
    }

    /// Words over the agent: the session cuts it (`interrupt` truncates and cancels), then the reply.
    func takeTurnOverAgent() async {
        let (handler, writer) = state.withLock { ($0.overlap.watch.handler, $0.writer) }
        await handler?(.interruption)
        try? await writer?.write(.text(RealtimeClientEvent.responseCreate()))
    }

    /// Our VAD's view of the caller: speech the session marked as an overlap that the server VAD
    /// never started held no words, and the agent plays on.
    func overlapActivity(_ activity: SpeechActivity) async {
        await state.withLock { $0.overlap.watch.unheard(activity) }?(.noWords)
    }
}
