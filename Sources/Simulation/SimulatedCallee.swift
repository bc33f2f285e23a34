import Bridge
import Dialogue
import Foundation
import Knowledge
import Logging
import Pipeline
import Realtime

/// A callee inside the process, reached over real SIP and RTP on 127.0.0.1: what outbound calls
/// dial when no gateway is configured, and what `voicebridge simulate-callee` runs standalone.
///
/// It rings about a second, answers, and after each agent utterance ends speaks its next answer
/// with espeak-ng — or, when it can hear (`hearing`), confirms a read-back or repeats itself more
/// slowly when asked again (`CalleeConversation`). Answers come in the INVITE's
/// `X-Simulated-Answers` header (base64 JSON list of strings, each a `CalleeLine`: `<hangup>`,
/// `<silence>`, `<dtmf 42#>`, `<vague>`, `<over Mm-hmm.>`, `<pause 800>`, `<noise 20>`); `<busy>`,
/// `<no_answer>` and `<reject>` as the first entry select those outcomes. Without a list it is a
/// cooperative default persona. A first entry `<says Hello?>` is said as soon as it
/// answers, as people do (over the agent's greeting: `<says Mm-hmm.>` is a backchannel);
/// `<ivr 2 For billing, press 1. …>` entries are a phone menu said as it answers, each level waiting
/// for its key (`SimulatedMenu`), the next line said once through;
/// `<screens Say your name …>` is said the same way by a call screener, which answers only agent
/// speech that goes on after it (a greeting over and done while it talked gets no line);
/// `<hum 900>` is 900 ms of mains buzz on the line then (noise an energy VAD takes for a voice,
/// with no words in it); `<voicemail long>` (a 12 s greeting), `<voicemail short>` or
/// `<voicemail ko>` make it an answering machine: the greeting, a 1 kHz beep, then silence.
public final class SimulatedCallee: Sendable {
    public static let answersHeader = "X-Simulated-Answers"
    public static let defaultAnswers = ["Yes, that works for me.", "No, everything can stay as it is.", "Sure, thank you."]

    let userAgent: SIPUserAgent
    let tts: EspeakSynthesizer
    /// The same voice, slower: how the callee repeats what was not understood.
    let slowTTS: EspeakSynthesizer?
    /// A human-sounding voice for the callee's English (its lines, openings and backchannels; a
    /// line in another `<voice>`, Korean and an answering machine's greeting stay espeak-ng's).
    /// Measured (`make bench` `recognition`): Moonshine reads 57 of 62 persona answers right in it
    /// over the phone line, 42 in espeak-ng's — people sound more like it than like espeak-ng.
    let natural: PiperVoice?
    /// Transcribes the agent (16 kHz in), so the callee can tell a read-back or a re-ask from a
    /// new question (`CalleeConversation`); nil: every agent utterance gets the next line.
    /// The words passed are what the callee expects to hear (its own answer read back, a re-ask);
    /// what is not heard within `limit` is heard as nothing.
    public typealias Hearing = @Sendable (_ samples: [Int16], _ expecting: [String], _ limit: Duration) async -> String?
    let hearing: Hearing?
    let ringing: Duration
    let rtpPorts: ClosedRange<Int>
    /// What its pauses wait on: the continuous clock, or the virtual time its calls run in.
    let clock: CallClock
    let logger: Logger

    public init(host: String = "127.0.0.1", port: Int = 0, rtpPorts: ClosedRange<Int>, tts: EspeakSynthesizer, natural: PiperVoice? = nil,
                hearing: Hearing? = nil, ringing: Duration = .seconds(1), clock: CallClock = .continuous,
                logger: Logger = Logger(label: "simulated-callee")) throws {
        var configuration = SIPUserAgent.Configuration()
        configuration.bindHost = host
        configuration.port = port
        configuration.rtpPorts = rtpPorts
        configuration.product = "VoiceBridge simulated callee"
        configuration.maxInboundCalls = 1000
        userAgent = try SIPUserAgent(configuration: configuration, logger: logger)
        self.tts = tts
        slowTTS = try? EspeakSynthesizer(voice: tts.voice, wordsPerMinute: tts.wordsPerMinute * 3 / 4)
        self.natural = natural
        self.hearing = hearing
        self.ringing = ringing
        self.rtpPorts = rtpPorts
        self.clock = clock
        self.logger = logger
    }

    /// The same callee — its voices, its ear, its ringing — on `clock`, for calls joined to it in
    /// memory (`CallManager.Settings.inProcessCallee`): what test runs call (`TestLine`).
    public func onClock(_ clock: CallClock) throws -> SimulatedCallee {
        try SimulatedCallee(rtpPorts: rtpPorts, tts: tts, natural: natural, hearing: hearing, ringing: ringing,
                            clock: clock, logger: logger)
    }

    /// Hearing through the offline recognizer (the model shared with the local engine) on lanes of
    /// its own: the callee's transcriptions never queue ahead of an agent's. One the ear has no
    /// room for, or that comes too late, is heard as nothing — and the callee answers as a
    /// person who did not quite catch it would, with what it meant to say next.
    public static func hearing(_ recognizer: MoonshineTranscriber) -> Hearing {
        // Room for every callee of a busy test run to wait its turn: a job its caller gave up on
        // (`hearingBudget`) is skipped, not run, so the queue does not hold the ones behind it up.
        let ear = BlockingWorkPool(label: "voicebridge.callee-ear", width: recognizer.workers.width, capacity: recognizer.workers.width * 8,
                                   virtualLatency: MoonshineTranscriber.virtualLatency)
        return { samples, expecting, limit in
            try? await recognizer.transcribe(pcm16k: samples, bias: recognizer.bias(toward: expecting, bonus: listeningBias), on: ear, within: limit)
        }
    }

    /// How long the callee may take to make out an agent utterance before it answers anyway: the
    /// agent waits 8 s for a reply (`LocalEngine.replyTimeoutMilliseconds`) — the callee's 1.5 s
    /// of silence, this, its line's synthesis and a 300 ms beat fit in it — and a loaded machine
    /// must not turn a slow ear into a silent caller.
    static let hearingBudget: Duration = .milliseconds(5500)

    /// How strongly the callee's ear favours the words of a read-back's question ("is that right"),
    /// which tell a read-back from a new question — never the value being read back.
    static let listeningBias: Float = 3
    /// The opening of an agent utterance the callee always transcribes: 2 s at 16 kHz, enough for
    /// "Sorry, I didn't catch that", "I have …" or "That's all right. Does …".
    static let openingSamples = 32_000
    /// An utterance up to 3.5 s (16 kHz) is heard whole at once: a name read back ("I have Jane
    /// Smith. Is that right?") needs no second listening then.
    static let wholeAtOnceSamples = 56_000

    /// How the callee picks up a call.
    public enum Pickup: Sendable, Equatable {
        /// After ringing this long.
        case answer(after: Duration)
        /// Busy (SIP 486).
        case busy
        /// Declined (SIP 603).
        case reject
        /// It rings until the caller gives up.
        case never
    }

    /// How a call whose script is `answers` is picked up: its first entry may say busy, reject or no answer.
    public func pickup(for answers: [String]) -> Pickup {
        switch answers.first {
        case "<busy>": .busy
        case "<reject>": .reject
        case "<no_answer>": .never
        default: .answer(after: ringing)
        }
    }

    /// Binds the SIP socket; returns the port.
    public func start() async throws -> Int {
        let logger = self.logger
        await userAgent.setAdmission { [self] invite in
            // One line per new INVITE (retransmissions never get here): what tests count.
            logger.info("simulated callee: INVITE", metadata: ["uri": "\(invite.requestURI ?? "")", "call-id": "\(invite.callID ?? "")"])
            return switch pickup(for: Self.answers(in: invite.headers)) {
            case .busy: .reject(486)
            case .reject: .reject(603)
            case .never: .ringForever
            case .answer(let ringing): .accept(ringing: ringing)
            }
        }
        return try await userAgent.start()
    }

    /// Answers calls until cancelled; each call's conversation is a child task.
    public func run() async {
        let scheduler = PacerScheduler<[UInt8]>()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.userAgent.run() }
            group.addTask { await scheduler.run(clock: self.clock) }
            for await call in userAgent.incomingCalls {
                group.addTask { await self.converse(call, scheduler: scheduler) }
            }
        }
    }

    static func answers(in headers: SIPHeaders) -> [String] {
        guard let value = headers[answersHeader], let data = Data(base64Encoded: value),
              let list = try? JSONSerialization.jsonObject(with: data) as? [String] else { return [] }
        return list
    }

    /// The header value that carries `answers`.
    public static func header(for answers: [String]) -> (String, String) {
        let data = (try? JSONSerialization.data(withJSONObject: answers)) ?? Data("[]".utf8)
        return (answersHeader, data.base64EncodedString())
    }

    /// `text` spoken as 8 kHz μ-law: Korean text in espeak-ng's Korean voice, `voice` when given,
    /// else the callee's natural voice if it has one, else its espeak-ng voice; `slowly` at three
    /// quarters of the rate; over `hiss` dB below full scale if given.
    func speech(_ text: String, voice: EspeakSynthesizer? = nil, slowly: Bool = false, hiss: Int? = nil) async -> [UInt8]? {
        let samples: [Int16]?, rate: Int
        if Hangul.occurs(in: text) {
            samples = await espeak(text) { try EspeakSynthesizer(voice: "ko") }
            rate = EspeakSynthesizer.sampleRate
        } else if voice == nil, let natural, let spoken = await naturally(text, slowly: slowly) {
            samples = spoken
            rate = natural.sampleRate
        } else {
            samples = await espeak(text) { voice ?? (slowly ? slowTTS ?? tts : tts) }
            rate = EspeakSynthesizer.sampleRate
        }
        guard let samples, let downsampler = try? Resampler(from: rate, to: 8000) else { return nil }
        let line = downsampler.process(samples) + downsampler.flush()
        return G711.encode(hiss.map { Hiss.added(to: line, decibels: Double($0), seed: Hiss.seed(text)) } ?? line, law: .muLaw)
    }

    /// `text` in espeak-ng's `voice`; nil, with a warning, when it cannot be said: a line the callee
    /// does not say is a call the agent waits on, and the log should say why.
    private func espeak(_ text: String, in voice: () throws -> EspeakSynthesizer) async -> [Int16]? {
        do { return try await voice().synthesize(text) } catch {
            logger.warning("the simulated callee cannot say its line", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// `text` in the natural voice; nil, with a warning, when it cannot speak (its model is loaded
    /// at the first line it says, and a broken one fails there): the line is then said in espeak-ng.
    private func naturally(_ text: String, slowly: Bool) async -> [Int16]? {
        guard let natural else { return nil }
        do { return try await natural.synthesize(text, slowness: slowly ? 4.0 / 3 : 1) } catch {
            logger.warning("the simulated callee's natural voice cannot speak; this line is said in espeak-ng", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The callee's voice saying each entry of `script` that has words (markers taken out), as
    /// 8 kHz samples: what a simulated line's noise is levelled against, and what its babble says
    /// (`LineBed`).
    public func voices(saying script: [String]) async -> [[Int16]] {
        var voices: [[Int16]] = []
        for entry in script {
            let words = CalleeLine(entry).words
            guard !words.isEmpty, let audio = await speech(words) else { continue }
            voices.append(G711.decode(audio, law: .muLaw))
        }
        return voices
    }

    /// A script line's words as 8 kHz μ-law, its pauses as silence; `slowly` at three quarters of
    /// the rate (a repeat), with `prefix` ("No,") said first.
    func speech(_ line: CalleeLine, prefix: String, slowly: Bool) async -> [UInt8]? {
        var voice: EspeakSynthesizer?
        if let name = line.voice {
            let rate = slowly ? slowTTS?.wordsPerMinute ?? tts.wordsPerMinute : tts.wordsPerMinute
            guard let chosen = try? EspeakSynthesizer(voice: name, wordsPerMinute: rate) else {
                logger.warning("simulated callee: espeak-ng has no such voice; the line is not said", metadata: ["voice": "\(name)"])
                return nil
            }
            voice = chosen
        }
        var audio: [UInt8] = []
        for (i, segment) in line.segments.enumerated() {
            let text = i == 0 && !prefix.isEmpty ? prefix + " " + segment.text : segment.text
            if !text.trimmingCharacters(in: .whitespaces).isEmpty {
                guard let words = await speech(text, voice: voice, slowly: slowly, hiss: line.hiss) else { return nil }
                audio += words
            }
            if segment.pauseAfter > 0 {
                audio += segment.music ? Self.holdMusic(milliseconds: segment.pauseAfter) : Self.silence(milliseconds: segment.pauseAfter)
            }
        }
        return audio.isEmpty ? nil : audio
    }

    private func converse(_ call: SIPCall, scheduler: PacerScheduler<[UInt8]>) async {
        guard let leg = try? SIPCallLeg(call: call, scheduler: scheduler) else { return }
        await converse(on: leg, answers: Self.answers(in: call.requestHeaders)) { call.media?.send(digit: $0) }
    }

    /// One answered call on `leg` (which this runs), its script `answers`; `press` sends a key.
    public func converse(on leg: any MediaStreamLeg, answers: [String], press: @escaping @Sendable (Character) -> Void) async {
        var script = answers
        if let first = script.first, let name = first.wholeMatch(of: /<voicemail (\w+)>/)?.1, let greeting = Self.machineGreetings[String(name)] {
            await answerAsMachine(leg, greeting: greeting)
            return
        }
        var opening: [UInt8]?
        var screens = false
        var levels: [SimulatedMenu.Level] = []
        while let first = script.first, let match = first.wholeMatch(of: /<ivr ([0-9*#]|say:\S+) (.+)>/) {
            let answer = String(match.1)
            if let audio = await speech(CalleeLine(String(match.2)), prefix: "", slowly: false) {
                levels.append(.init(key: answer.count == 1 ? answer.first : nil, word: answer.count == 1 ? nil : String(answer.dropFirst(4)).lowercased(), audio: audio))
            }
            script.removeFirst()
        }
        var menu = SimulatedMenu(levels, saidAt: clock.now + .milliseconds(400))
        if let menu {
            opening = menu.levels[0].audio
        } else if let first = script.first, let match = first.wholeMatch(of: /<(says|screens) (.+)>/) {
            opening = await speech(String(match.2))
            screens = match.1 == "screens"
            script.removeFirst()
        } else if let first = script.first, let milliseconds = first.wholeMatch(of: /<hum (\d+)>/)?.1 {
            opening = Self.hum(milliseconds: min(5000, Int(milliseconds) ?? 0))
            script.removeFirst()
        }
        var conversation = CalleeConversation(script: script.isEmpty ? Self.defaultAnswers : script)
        // The agent's turn is over after 1.5 s of silence: its sentences pause ~300 ms, and speech
        // over it holds it up to ~0.8 s before it plays on — over 1 s on a loaded machine
        // (answered into that gap, the callee talked over the rest of the agent's utterance).
        let endOfTurn = 1500
        var vad = VoiceActivityDetector(configuration: .init(onsetMilliseconds: 60, offsetMilliseconds: endOfTurn))
        // A screener's opening ends then: agent speech over before it is not answered.
        var openingEnds = screens ? opening.map { clock.now + .milliseconds(400 + $0.count / 8) } : nil
        await withDiscardingTaskGroup { group in
            group.addTask { await leg.run() }
            if let opening {
                try? await clock.sleep(for: .milliseconds(400))   // picks up, then speaks
                await leg.send(.media(opening))
            }
            var agentSpoke = false
            var heard = AgentSpeech()
            var answered = 0
            var backchannelled = -1   // the script line whose backchannel was said
            var hangUpAtMark: String?   // a line's `<hangup>`: its mark back, its words were played
            var keyTones = ToneDetector()
            /// What the menu's action does; false: the call is over.
            func act(_ action: SimulatedMenu.Action?) async -> Bool {
                switch action {
                case .say(let audio)?:
                    await leg.send(.media(audio))
                case .refuse?:
                    if let audio = await speech("Sorry, that is not a valid choice. Goodbye.") { await leg.send(.media(audio)) }
                    await leg.send(.mark("menu-refused"))
                    hangUpAtMark = "menu-refused"
                case .through?:
                    guard case .line(let line, _, _) = conversation.reply(toAgent: nil) else { break }
                    if line.action == .hangUp { await leg.hangUp(); return false }
                    if let audio = await speech(line, prefix: "", slowly: false) {
                        // The agent answers what follows. Timed before the send, which waits while
                        // most of a long line (a hold) is played.
                        openingEnds = clock.now + .milliseconds(audio.count / 8)
                        await leg.send(.media(audio))
                    }
                case nil:
                    break
                }
                return true
            }
            for await event in leg.events {
                if case .mark(let name) = event, name == hangUpAtMark { await leg.hangUp(); break }
                // In the phone menu: keys move it on — RFC 4733 events, or their tones in the agent's
                // audio — and the agent's words get no line.
                var keys: [Character] = []
                if case .dtmf(_, let key) = event { keys = [key] }
                if case .media(let media) = event, menu?.isOver == false {
                    keyTones.process(G711.decode(media.payload, law: .muLaw)) { if case .dtmf(let key) = $0 { keys.append(key) } }
                }
                var action = keys.isEmpty ? menu?.tick(now: clock.now) : nil
                for key in keys where action == nil { action = menu?.pressed(key, now: clock.now) }
                guard await act(action) else { return }
                guard case .media(let media) = event else { continue }
                let samples = G711.decode(media.payload, law: .muLaw)
                let decision = vad.process(AudioFrame(samples: samples, sampleRate: 8000))
                heard.append(samples, speechStarted: decision.event == .speechStarted)
                if decision.event == .speechStarted {
                    agentSpoke = true
                    if let over = conversation.upcoming?.over, backchannelled != conversation.next {
                        backchannelled = conversation.next
                        group.addTask {   // a backchannel over the agent, a second into its utterance
                            try? await self.clock.sleep(for: .milliseconds(1200))
                            if let audio = await self.speech(over) { await leg.send(.media(audio)) }
                        }
                    }
                }
                guard decision.event == .speechEnded, agentSpoke else { continue }
                let utterance = heard.take(endSilence: endOfTurn * 8)
                if let openingEnds, clock.now - .milliseconds(endOfTurn) < openingEnds { continue }
                if menu?.isOver == false {
                    // A menu that asks for speech hears the agent's words.
                    if menu?.awaitsWords == true, let hearing, let words = await hearing(utterance, [], Self.hearingBudget) {
                        guard await act(menu?.said(words, now: clock.now)) else { return }
                    }
                    continue
                }
                var words: String?
                if let hearing, conversation.isListening {
                    // What the agent is doing shows in its first words ("Sorry, I didn't catch that",
                    // "I have …"): those are heard first (a short utterance whole), and the whole
                    // only for a read-back that was cut — so listening costs the recognizer little.
                    let deadline = clock.now + Self.hearingBudget
                    let first = utterance.count <= Self.wholeAtOnceSamples ? utterance : Array(utterance.prefix(Self.openingSamples))
                    words = await hearing(first, CalleeConversation.readBackCues, Self.hearingBudget)
                    if let opening = words, ReadBack.isReadBack(opening), first.count < utterance.count {
                        // Not made out in time (a loaded machine), the read-back is judged on what
                        // was heard first, which holds the value — not taken for a new question.
                        words = await hearing(utterance, CalleeConversation.readBackCues, max(.zero, deadline - clock.now)) ?? opening
                    }
                    if words == nil {   // at info: a test whose callee answered the wrong thing says why
                        logger.info("simulated callee: the agent was not made out in time; the next line is said", metadata: ["samples": "\(utterance.count)"])
                    }
                }
                logger.debug("simulated callee: heard the agent", metadata: ["words": "\(words ?? "-")", "samples": "\(utterance.count)"])
                guard case .line(let line, let prefix, let slowly) = conversation.reply(toAgent: words) else { continue }
                if line.action == .hangUp { await leg.hangUp(); break }
                if line.action == .silence { continue }
                for digit in line.keys {
                    press(digit)
                    try? await clock.sleep(for: .milliseconds(200))
                }
                guard !line.words.isEmpty, let audio = await speech(line, prefix: prefix, slowly: slowly) else { continue }
                try? await clock.sleep(for: .milliseconds(300))   // a human beat before answering
                answered += 1
                await leg.send(.media(audio))
                await leg.send(.mark("answer-\(answered)"))
                if line.hangsUpAfter { hangUpAtMark = "answer-\(answered)" }
            }
        }
    }
}
