import Pipeline

/// How the local engine decides that the caller's turn is over (`engine.turn_detection`).
///
/// `pause` alone: the turn ends after a fixed silence past the VAD's speech end — shorter when the
/// words so far answer the question. With the model (Smart Turn v3.2), the caller's audio is scored
/// as soon as the VAD hears speech end (~200 ms of silence): judged complete, the turn ends then;
/// judged incomplete ("my number is zero one zero, …"), the engine waits — up to `ceiling` — unless
/// the words already answer the question, which stays a second signal.
public struct TurnDetector: Sendable {
    /// nil: pause only.
    public var model: SmartTurnModel?
    /// The model's probability at or above which a turn is complete.
    public var threshold: Float
    /// Longest wait after speech end when the model says the turn goes on.
    public var ceilingMilliseconds: Int
    /// `engine.turn_ceiling_ms`'s default: with it `make bench`'s personas kept their statuses and
    /// the slowest turns (p99) came down to ~1.26 s from ~2.06 s with 2,000.
    public static let defaultCeilingMilliseconds = 1200

    public init(model: SmartTurnModel? = nil, threshold: Float = 0.5, ceilingMilliseconds: Int = defaultCeilingMilliseconds) {
        self.model = model
        self.threshold = threshold
        self.ceilingMilliseconds = ceilingMilliseconds
    }

    /// Pause only.
    public static let pause = TurnDetector()

    /// Whether the turn in `utterance` (16 kHz) is complete, by the model; nil without one, or
    /// when it could not run or had not answered within the ceiling (the pause rule then
    /// decides): the caller never waits longer than the ceiling for a verdict — on a loaded
    /// machine a queued verdict had held a cascade turn past the call's next seconds.
    public func completes(_ utterance: [Int16]) async -> Bool? {
        guard let model else { return nil }
        let audio = utterance.suffix(WhisperLogMel.samples).map { Float($0) / 32768 }
        guard let probability = try? await model.completion(of: audio, within: .milliseconds(ceilingMilliseconds)) else { return nil }
        return probability >= threshold
    }
}
