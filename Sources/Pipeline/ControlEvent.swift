/// Events that steer the audio rather than carry it. They overtake queued audio everywhere.
public enum ControlEvent: Sendable, Equatable {
    /// The caller started speaking over the agent: drop queued outbound audio now.
    case interrupt
    /// Drop queued audio without other meaning (e.g. a leg's `clear`).
    case flush
    /// End of stream: stages finish their work and stop.
    case end

    /// Whether an edge drops its queued data when this event enters it.
    public var dropsQueuedData: Bool {
        switch self {
        case .interrupt, .flush: true
        case .end: false
        }
    }
}

/// What travels on an edge of the stage graph.
public enum StageMessage<Payload: Sendable>: Sendable {
    case data(Payload)
    case control(ControlEvent)
}
