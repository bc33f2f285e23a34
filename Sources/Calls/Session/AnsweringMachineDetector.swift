/// Who picked up, decided from the first seconds of the callee's audio, 20 ms at a time: a person
/// says something short ("Hello?") and waits for a reply; a machine talks on (a greeting longer
/// than a person's), or beeps, or says so ("leave a message", "음성 사서함"). Nobody speaking for
/// a while, or no verdict by `decideByMs`, is `unknown` — the agent then greets as for a person.
///
/// After a verdict it keeps listening: a beep or a machine's words later turn a human/unknown
/// verdict into `machine` (late), and it says when a machine's greeting is over (its beep, or a
/// silence) so a message is left where the recorder hears it.
public struct AnsweringMachineDetector: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Nobody speaks this long after answer: `unknown`.
        public var initialSilenceMs = 2500
        /// The first greeting's voiced time beyond which it is a machine's. Twilio's default
        /// (`MachineDetectionSpeechThreshold`, 2400 ms): a person introducing themselves ("Hello, Tom
        /// speaking.", 1.6 s in espeak-ng) talks past 1.5 s, and hanging up on a person costs more
        /// than talking to a machine until its beep.
        public var greetingMaxMs = 2400
        /// A greeting shorter than that, then this much silence (a pause for a reply): a person.
        public var afterGreetingSilenceMs = 800
        /// No verdict by then: `unknown`.
        public var decideByMs = 3500
        /// A machine's greeting is over after this much silence (when no beep came first).
        public var endOfGreetingSilenceMs = 1500
        /// A beep or a machine's words this long after answer still change the verdict.
        public var lateWindowMs = 20_000

        public init() {}

        /// With a speech threshold of `greetingMaxMs`: the verdict's deadline moves with it, so a
        /// greeting just under the threshold still has time to pause for a reply.
        public init(greetingMaxMs: Int) {
            self.greetingMaxMs = greetingMaxMs
            decideByMs = max(decideByMs, greetingMaxMs + afterGreetingSilenceMs + 300)
        }
    }

    public enum Verdict: String, Sendable, Equatable {
        case human, machine, unknown
    }

    public struct Decision: Sendable, Equatable {
        public var verdict: Verdict
        public var reason: String
        /// Milliseconds of audio after answer when it was made.
        public var atMs: Int
    }

    /// Phrases only machines say at the start of a call (lowercased).
    static let machinePhrases = ["leave a message", "leave your message", "leave your name", "after the tone", "after the beep",
                                 "not available", "voicemail", "voice mail", "can't take your call", "cannot take your call",
                                 "unable to take your call", "음성 사서함", "음성사서함", "메시지를 남겨", "삐 소리", "전화를 받을 수 없"]

    public let settings: Settings
    public private(set) var decision: Decision?
    public private(set) var elapsedMs = 0
    private var voicedMs = 0
    private var lastSpeechMs: Int?
    private var beepAtMs: Int?

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// One 20 ms frame: whether the VAD calls it speech and whether a beep ended on it. Returns a
    /// verdict when this frame makes one (the first, or a late change to `machine`).
    public mutating func observe(speech: Bool, beep: Bool, frameMs: Int = 20) -> Decision? {
        elapsedMs += frameMs
        if speech {
            lastSpeechMs = elapsedMs
            if decision == nil { voicedMs += frameMs }
        }
        if beep, beepAtMs == nil { beepAtMs = elapsedMs }
        if let decision {
            guard beep, decision.verdict != .machine, elapsedMs <= settings.lateWindowMs else { return nil }
            return decide(.machine, "a beep after the greeting")
        }
        let s = settings
        if beep { return decide(.machine, "a beep") }
        if voicedMs >= s.greetingMaxMs { return decide(.machine, "a greeting longer than \(s.greetingMaxMs) ms") }
        if let last = lastSpeechMs, elapsedMs - last >= s.afterGreetingSilenceMs { return decide(.human, "a short greeting, then a pause for a reply") }
        if lastSpeechMs == nil, elapsedMs >= s.initialSilenceMs { return decide(.unknown, "nobody spoke") }
        if elapsedMs >= s.decideByMs { return decide(.unknown, "no verdict in \(s.decideByMs) ms") }
        return nil
    }

    /// Words the callee said (the recognizer's transcript): a machine's phrase is a verdict, or
    /// changes a human/unknown one within the late window.
    public mutating func heard(words: String) -> Decision? {
        let text = words.lowercased()
        guard decision?.verdict != .machine, elapsedMs <= settings.lateWindowMs,
              let phrase = Self.machinePhrases.first(where: text.contains) else { return nil }
        return decide(.machine, "said \"\(phrase)\"")
    }

    /// A machine's greeting has ended: its beep was heard, or it has been quiet long enough.
    public var greetingIsOver: Bool {
        if beepAtMs != nil { return true }
        return elapsedMs - (lastSpeechMs ?? 0) >= settings.endOfGreetingSilenceMs
    }

    private mutating func decide(_ verdict: Verdict, _ reason: String) -> Decision {
        let made = Decision(verdict: verdict, reason: reason, atMs: elapsedMs)
        decision = made
        return made
    }
}
