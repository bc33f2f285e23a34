/// How sure the local dialogue must be that it heard an answer right before it stores the answer
/// as `answered`. An operator acts on what is stored: an answer heard below its floor is kept as
/// `unclear` with the words heard, and the question asked once more — a wrong answer stored as
/// answered costs more than a re-ask.
///
/// The score is the reading's confidence (0.9 for an answer to the question asked, halved for a
/// hedge, 0.8 for an answer to another question said unprompted) times the recognizer's
/// (`Transcript.confidence`: the geometric mean of its tokens' probabilities); it is what the
/// answer stores as `confidence`. Before the score, the reading is a gate of its own: a value that
/// is not well formed (a number to dial of the wrong length, a time that is no time) is no answer.
public struct AnswerConfidence: Sendable, Equatable {
    /// The lowest score at which an answer is stored as answered (`engine.local.answer_confidence`).
    public var floor: Double

    public init(floor: Double = AnswerConfidence.calibratedFloor) { self.floor = floor }

    /// Stores whatever is heard (the behaviour before the floor; what the calibration runs with).
    public static let off = AnswerConfidence(floor: 0)

    /// `calibrated`: none in either language, from `make bench` (29 Nov; docs/benchmarks.md,
    /// "Answer confidence"). `--only calibration` ran the tuning personas, floor off, on a clean
    /// line and on one hissing at −25 dB:
    /// - English (Moonshine): the 7 wrong answers of 99 scored 0.58–1 (confident mishearings, and
    ///   read-backs the callee confirmed), among the right ones: every floor sends back more right
    ///   answers than it catches wrong ones.
    /// - Korean (Whisper base on espeak-ng's voice): the 4 wrong answers of 13 scored 0.11–0.14, and
    ///   0.15 caught them for 4 right ones sent back. It did not carry over: on the held-out
    ///   personas it stored one wrong answer fewer and three right ones fewer, and a plainly said
    ///   "네" scores about 0.12 — the floor sent back the plainest yes there is.
    /// So the floor is the operator's to set; one per kind or language would need more wrong
    /// answers of each than these sets hold.
    public static let calibratedFloor = 0.0
}
