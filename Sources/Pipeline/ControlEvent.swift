/// Events that steer the audio rather than carry it. They overtake queued audio everywhere.
public enum ControlEvent: Sendable, Equatable {
    /// The caller started speaking over the agent: drop queued outbound audio now.
    case interrupt
    /// Drop queued audio without other meaning (e.g. a leg's `clear`).
    case flush
    /// End of a stream (an agent utterance, or the call): stages emit what they still hold and
    /// are ready for the next stream.
    case end

    /// Whether an edge drops its queued data when this event enters it.
    public var dropsQueuedData: Bool {
        switch self {
        case .interrupt, .flush: true
        case .end: false
        }
    }
}

/// What travels through a bounded queue: data, or a control event that overtakes it.
public enum StageMessage<Payload: Sendable>: Sendable {
    case data(Payload)
    case control(ControlEvent)
}
