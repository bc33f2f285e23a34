import Dialogue
import Foundation
import Realtime

/// What the simulated callee says next, given what it heard the agent say: a fair partner, as a
/// person on the phone is. Each agent utterance is answered with the script's next line, except
/// - a read-back ("I have five five five … Is that right?"): "Yes, that's right." when it gives
///   back what the callee said, else "No, " and the line again, slowly;
/// - a re-ask of what the callee answered ("Sorry, I didn't catch that …"): the same line again,
///   slowly — unless the line was `<vague>`, when the next one is what the callee says now.
/// Neither uses up a line of the script. Without hearing (no recognizer) every utterance gets
/// the next line, as before.
struct CalleeConversation: Sendable {
    enum Reply: Sendable, Equatable {
        /// Say this line (`slowly`: a repeat, at a slower rate), with `prefix` before its words.
        case line(CalleeLine, prefix: String = "", slowly: Bool = false)
        /// The script is over: nothing more to say.
        case done
    }

    private(set) var script: [CalleeLine]
    private(set) var next = 0
    /// The last line said (not a confirmation), and how many times in a row it was repeated.
    private var last: CalleeLine?
    private var repeats = 0
    let now: Date

    /// How many times a line is said again before the callee gives up on being understood.
    static let maxRepeats = 3

    init(script: [String], now: Date = Date()) {
        self.script = script.map(CalleeLine.init)
        self.now = now
    }

    /// The line the next agent utterance gets if it is not a read-back or re-ask (for `<over …>`).
    var upcoming: CalleeLine? { next < script.count ? script[next] : nil }

    /// The words that tell a read-back from a new question: all the callee listens for. Not its
    /// own answer's words: favoured in an opening, a new question after a phone number ("When
    /// would suit you for a visit?") was heard as "When one two two four"; favoured in a whole
    /// read-back, a misheard name read back was heard as the callee's own and confirmed ("Bridget
    /// Morne" as Moran) — where a person would have heard the difference.
    static let readBackCues = ["is", "that", "right", "correct", "have"]

    /// Whether what the agent says next can change the reply: only after a line with words that
    /// may be read back or asked again (the greeting and the question after a hang-up need no ear).
    var isListening: Bool {
        guard let last else { return false }
        return last.action == .say && !last.words.isEmpty && repeats < Self.maxRepeats
    }

    mutating func reply(toAgent heard: String?) -> Reply {
        if let heard, let last, isListening {
            // A read-back of an answer that holds something to read back (a yes is not).
            if ReadBack.isReadBack(heard), let match = ReadBack.matches(heard, said: last.words, now: now) {
                if match { return .line(CalleeLine("Yes, that's right.")) }
                repeats += 1
                return .line(last, prefix: "No,", slowly: true)
            }
            if Reask.isReask(heard), !last.vague {
                repeats += 1
                return .line(last, slowly: true)
            }
        }
        guard next < script.count else { return .done }
        let line = script[next]
        next += 1
        last = line
        repeats = 0
        return .line(line)
    }
}
