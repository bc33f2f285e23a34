import Dialogue
import Pipeline

/// When the caller's turn is over, frame by frame: the window of silence the signals call for
/// (pause, the words, the end-of-turn model) and where a frame leaves the turn.
extension LocalEngine {
    /// How long words that stop short hold the turn: people's pauses mid-sentence are under a
    /// second, and a caller who did finish on "…, um," waits no longer than this for the reply.
    static let stopShortHoldMilliseconds = 1200
    /// A turn of this many words or fewer that the model judges complete still waits the answered
    /// window: "Yes," is a whole answer and the usual start of a longer one, and from half a second
    /// of 8 kHz audio the model took "Yes, … I can attend" for done at the comma (docs/guide/conversation.md,
    /// "Turn-taking": personas with the model).
    static let briefTurnWords = 2

    /// The end-of-turn window now, in silence past the VAD's speech end: none when the model
    /// judged the turn complete (the answered window for a brief one); the answered window when
    /// the words up to the speech end answer the question, whatever the model says; the model's
    /// ceiling when it judged the turn unfinished and the words answer nothing; the stop-short
    /// hold when the words stop short ("My name is …"); else the pause
    /// rule's. So the model only ever shortens an answered turn and lengthens an unanswered one:
    /// over the phone line it judged a third of whole answers unfinished ("Yes, that's right." in
    /// Piper's voice), which the words settle (docs/guide/conversation.md, "Turn-taking").
    func window(_ s: State) -> Int {
        window(after: s.speculation.flatMap { $0.speechStarts == s.speechStarts ? $0 : nil })
    }

    /// The same, from the current speech's speculation (nil: none yet). While its words are being
    /// transcribed (and judged), no silence ends the turn: they set the window when they come.
    func window(after speculation: Speculation?) -> Int {
        guard let speculation else { return turns.model == nil ? endOfTurnMilliseconds : turns.ceilingMilliseconds }
        guard speculation.heard != nil else { return .max }
        // Words that stop short outweigh the model: on an 8 kHz line it took "No, my name is" and
        // "It's five five five," for whole turns, and what came after the caller's pause was lost.
        if speculation.stopsShort { return min(turns.ceilingMilliseconds, Self.stopShortHoldMilliseconds) }
        switch (speculation.complete, speculation.answers) {
        case (true?, _): return speculation.brief ? answeredTurnMilliseconds : 0
        case (_, true): return answeredTurnMilliseconds
        case (false?, false): return turns.ceilingMilliseconds
        case (nil, false): return endOfTurnMilliseconds
        }
    }

    /// Whether the end-of-turn model is asked about words just transcribed at a speech end: not
    /// when the words alone set the window — they stop short, or they answer the question and are
    /// brief or the answered window is already out. Asked beside the transcription, the model took
    /// a core from it at the moment it mattered: personas, 5 at a time, transcribed ~100 ms slower
    /// at p50 (docs/guide/conversation.md, "Turn-taking"); asked after, it judges about one turn in ten there.
    /// `silence`: the silence since the speech end so far.
    func asksTheModel(about words: Speculation, silence: Int?) -> Bool {
        guard turns.model != nil, !words.stopsShort else { return false }
        guard words.answers else { return true }
        return !words.brief && (silence ?? 0) < answeredTurnMilliseconds
    }

    /// At most `briefTurnWords` words, counted as the dialogue counts them.
    static func isBrief(_ text: String) -> Bool {
        ReplyInterpreter.tokens(text).count <= briefTurnWords
    }

    /// Whether this frame, silent, ends the wait for the caller's reply.
    static func timesOut(after speech: SpeechActivity, milliseconds: Int, _ s: State) -> Bool {
        !s.ended && s.awaitingReply && !s.listening && speech != .started && s.waitedMilliseconds + milliseconds >= s.replyDeadlineMilliseconds
    }

    /// Where the caller's turn stands after a frame: still listening, silence since speech ended,
    /// and whether that silence has now ended the turn.
    static func turn(after speech: SpeechActivity, milliseconds: Int, _ s: State, endOfTurn: Int)
        -> (listening: Bool, trailingSilence: Int?, ends: Bool) {
        guard !s.ended else { return (s.listening, s.trailingSilence, false) }
        var listening = s.listening
        var silence = s.trailingSilence
        switch speech {
        case .started:
            listening = true
            silence = nil
        case .ended where listening:
            silence = 0
        case .silence where listening && silence != nil:
            silence! += milliseconds
        default: break
        }
        guard listening, let silence, silence >= endOfTurn else { return (listening, silence, false) }
        return (false, nil, true)
    }
}
