import Dialogue
import Foundation
import Pipeline

/// The engine's two tasks under `start()`: hearing — transcribing what the caller's frames
/// finished and judging on the words whether the turn is over — and replying — the dialogue's
/// next step, spoken. `send` only queues for them, so the frames that follow a speech end are
/// taken while it is transcribed, and the turn's end is judged on the audio as it arrives.
/// (Transcribed in `send`, a transcription of 1–4 s under load held the caller's frames back;
/// they came after it all at once, so the turn was judged on none of them — the end-of-turn model
/// ended "Sorry, I'm in a meeting, … call me later." at the comma — and a backlog past the leg's
/// 4 s buffer lost its oldest audio.) Kept apart, a reply waiting on a held agent never holds up
/// the verdict on the speech over it that lets the agent go on.
extension LocalEngine {
    /// What the replying task does next.
    enum Reply {
        /// The caller's turn, as heard; `since`: when it began to be transcribed; `decided`: when
        /// the turn was judged over (said to the session from here: hearing never waits on the
        /// events, which queue behind the agent's audio).
        case answer(Transcript, since: ContinuousClock.Instant, decided: ContinuousClock.Instant)
        /// A key the template maps, as the words it stands for.
        case pressed(String)
        /// No reply came in time.
        case noReply
        /// Everything heard before the hang-up is kept (`callEnded`): finish the stream.
        case hangUp(AsyncStream<Void>.Continuation)
    }

    func hear() async {
        while let message = await heard.next() {
            guard case .data(let outcome) = message else { continue }
            switch outcome {
            case .utterance(let finished):
                let started = VirtualTimeExecutor.now
                let heard = await transcribe(finished)
                if keptAfterHangUp(heard) { continue }
                if await settleOverlap(heard.text, turnOver: true) { continue }
                // The window ran out before any words were judged: the turn ended as they began to be transcribed.
                _ = await replies.send(.answer(heard, since: started, decided: started))
            case .transcribed(let heard, let transcribing):
                if keptAfterHangUp(heard) { continue }
                if await settleOverlap(heard.text, turnOver: true) { continue }
                let now = VirtualTimeExecutor.now   // over, on words already heard
                _ = await replies.send(.answer(heard, since: now - transcribing, decided: now))
            case .speechEnded(let sofar, let starts):
                guard state.withLock({ !$0.hungUp || $0.lastWordsSpeculation == starts }) else { continue }
                await speculate(on: sofar, speechStarts: starts)
            case .noReply:
                guard !state.withLock({ $0.hungUp }) else { continue }
                _ = await replies.send(.noReply)
            case .hangUp(let done):
                if await !replies.send(.hangUp(done)) { done.finish() }
            }
        }
    }

    func reply() async {
        while let message = await replies.next() {
            guard case .data(let next) = message else { continue }
            switch next {
            case .answer(let heard, let started, let decided):
                if keptAfterHangUp(heard) { continue }
                await answer(heard, since: started, decided: decided)
            case .pressed(let words):
                if keptAfterHangUp(Transcript(certain: words), inTranscript: false) { continue }
                await respond(state.withLock { ($0.dialogue.caller(said: words), $0.dialogue.tracker) })
            case .noReply:
                guard !state.withLock({ $0.hungUp }) else { continue }
                await say(state.withLock { $0.dialogue.noReply() })
            case .hangUp(let done):
                done.finish()
            }
        }
    }

    /// The words up to a speech end, while the caller may still go on: they set the end-of-turn
    /// window (with the model's verdict where it can still change it), and end the turn at once
    /// if its window ran out meanwhile.
    private func speculate(on sofar: [Int16], speechStarts starts: Int) async {
        // The caller spoke again before the recognizer got to this, or while it was at it: its
        // words are stale — unless they were said over the agent, whose wait for a verdict they
        // may end (as a turn). Given up part-way, they cost the recognizer no more.
        let wanted: @Sendable () -> Bool = { [self] in state.withLock { $0.speechStarts == starts || $0.overlap != nil } }
        guard wanted() else { return }
        let started = VirtualTimeExecutor.now
        let heard = await transcribe(sofar, while: wanted)
        if keptAsLastWords(heard, speechStarts: starts) { return }
        let text = heard.text
        let transcribing = started.duration(to: VirtualTimeExecutor.now)
        if await settleOverlap(text, turnOver: false, speechStarts: starts) { return }
        // The words judged once; the model after them, only where its verdict can still change the wait.
        let (judged, asks) = state.withLock { s in
            let judged = Speculation(speechStarts: starts, heard: heard, answers: s.dialogue.completesAnAnswer(text), stopsShort: s.dialogue.stopsShort(text),
                                     brief: Self.isBrief(text), transcribing: transcribing)
            return (judged, s.speechStarts == starts && asksTheModel(about: judged, silence: s.trailingSilence))
        }
        let complete = asks ? await turns.completes(sofar) : nil
        // The frames went on meanwhile: the words count only if the caller has not spoken again;
        // the turn ends now if their window is already out (the silence went on while they were
        // pending: the turn waited for them).
        let endsNow = state.withLock { s -> Bool in
            guard !s.ended, s.speculation?.speechStarts == starts, s.speechStarts == starts else { return false }
            s.speculation = judged
            s.speculation?.complete = complete
            guard s.listening, let silence = s.trailingSilence, silence >= window(s) else { return false }
            s.dropTurn()   // over, on these words
            return true
        }
        if endsNow, await !settleOverlap(text, turnOver: true) {
            let now = VirtualTimeExecutor.now
            _ = await replies.send(.answer(heard, since: now - transcribing, decided: now))
        }
    }

    private func answer(_ heard: Transcript, since started: ContinuousClock.Instant, decided: ContinuousClock.Instant) async {
        let text = heard.text
        await events.emit(.milestone(.turnEnded, at: decided))
        await firstByte("stt", since: started)
        await milestone(.transcribed)
        await events.emit(.transcript(speaker: .customer, text: text, item: nil))
        await weighMenu(text)
        let lookup = state.withLock { s in
            s.takeLanguage(of: heard)
            return s.dialogue.wantsLookup(text)
        }
        let answer = lookup ? await searchFAQ(text) : nil
        await respond(state.withLock { s in
            (lookup ? s.dialogue.caller(asked: text, answer: answer) : s.dialogue.caller(said: text, confidence: heard.confidence), s.dialogue.tracker)
        })
    }

    /// The dialogue's step after the caller's turn, spoken.
    private func respond(_ next: (step: ScriptedDialogue.Step, tracker: TaskTracker)) async {
        await milestone(.replyStarted)
        await events.emit(.taskState(next.tracker))
        await say(next.step)
    }
}

extension LocalEngine.State {
    /// The caller's words were heard in another of the call's languages: the dialogue speaks it
    /// from now on, and the ear takes it for the one being spoken.
    mutating func takeLanguage(of heard: Transcript) {
        guard let language = heard.language, !heard.text.isEmpty, dialogue.speaking(language) else { return }
        ear = ear.hearing(language)
    }
}
