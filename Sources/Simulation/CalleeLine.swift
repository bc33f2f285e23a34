/// One entry of a simulated callee's script (`SimulatedCallee`), read once: what to do when its
/// turn comes, and how.
///
/// `<hangup>` and `<silence>` stand alone. Otherwise markers may open the line, in any order:
/// `<over Mm-hmm.>` is said over the agent's utterance that this line answers (a backchannel),
/// `<vague>` marks words not meant as an answer (on a re-ask the callee goes on to its next line
/// instead of repeating them), `<dtmf 42#>` presses keys before speaking, `<voice de>` speaks the
/// line in that espeak-ng voice (a persona's language), `<noise 20>` says it over a hissing line
/// (white noise peaking that many dB below full scale, 0–60, drawn from the words: the same hiss
/// every run). `<pause 800>` inside the words is that many milliseconds of silence mid-answer;
/// `<music 30000>` that many of hold music (up to 5 minutes: a hold before a person comes on).
/// `<hangup>` after the words hangs up as soon as they have been played ("Yes, I'll be there." —
/// click), before the agent's turn is over.
struct CalleeLine: Sendable, Equatable {
    enum Action: Sendable, Equatable { case say, hangUp, silence }

    var action: Action = .say
    var keys = ""
    var over: String?
    var vague = false
    /// The espeak-ng voice for the words (nil: the callee's own).
    var voice: String?
    /// The words come over hiss this many dB below full scale (nil: a clean line).
    var hiss: Int?
    /// Hangs up once the words have been played.
    var hangsUpAfter = false
    /// The words with their pauses, in order: (text, milliseconds of silence after it).
    /// `music`: the pause is hold music rather than silence.
    var segments: [(text: String, pauseAfter: Int, music: Bool)] = []

    /// The words alone, pauses taken out: what the callee meant.
    var words: String { segments.map(\.text).filter { !$0.isEmpty }.joined(separator: " ") }

    init(_ entry: String) {
        switch entry {
        case "<hangup>": action = .hangUp; return
        case "<silence>": action = .silence; return
        default: break
        }
        var rest = Substring(entry).drop { $0 == " " }
        while true {
            if let m = rest.prefixMatch(of: /<over ([^>]+)>\s*/) {
                over = String(m.1); rest = rest[m.range.upperBound...]
            } else if let m = rest.prefixMatch(of: /<vague>\s*/) {
                vague = true; rest = rest[m.range.upperBound...]
            } else if let m = rest.prefixMatch(of: /<voice ([a-z]{2,3}(?:-[a-z0-9]+)?)>\s*/) {
                voice = String(m.1); rest = rest[m.range.upperBound...]
            } else if let m = rest.prefixMatch(of: /<noise (\d{1,2})>\s*/) {
                hiss = Int(m.1); rest = rest[m.range.upperBound...]
            } else if let m = rest.prefixMatch(of: /<dtmf ([0-9*#A-D]+)>\s*/) {
                keys = String(m.1); rest = rest[m.range.upperBound...]
            } else {
                break
            }
        }
        var text = rest
        if let m = text.firstMatch(of: /\s*<hangup>\s*$/) {
            hangsUpAfter = true
            text = text[..<m.range.lowerBound]
        }
        while let m = text.firstMatch(of: /\s*<(pause|music) (\d+)>\s*/) {
            let music = m.1 == "music"
            segments.append((String(text[..<m.range.lowerBound]), min(music ? 300_000 : 5000, Int(m.2) ?? 0), music))
            text = text[m.range.upperBound...]
        }
        segments.append((String(text), 0, false))
    }

    static func == (a: CalleeLine, b: CalleeLine) -> Bool {
        a.action == b.action && a.keys == b.keys && a.over == b.over && a.vague == b.vague && a.voice == b.voice && a.hiss == b.hiss && a.hangsUpAfter == b.hangsUpAfter
            && a.segments.map(\.text) == b.segments.map(\.text) && a.segments.map(\.pauseAfter) == b.segments.map(\.pauseAfter) && a.segments.map(\.music) == b.segments.map(\.music)
    }
}
