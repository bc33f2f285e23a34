/// A call's life (seed 000 §4.3), as a state machine with its transitions spelled out.
public enum CallState: String, Sendable, Codable, CaseIterable {
    case queued, dialing, ringing, connected
    case completed, noAnswer = "no_answer", busy, rejected, failed, cancelled

    /// States in which a call holds telephony resources; a crash leaves these to be reconciled.
    public var isLive: Bool {
        switch self {
        case .dialing, .ringing, .connected: true
        default: false
        }
    }

    public var isTerminal: Bool {
        switch self {
        case .completed, .noAnswer, .busy, .rejected, .failed, .cancelled: true
        default: false
        }
    }

    /// Whether the state machine allows going from `self` to `next`.
    public func canTransition(to next: CallState) -> Bool {
        switch (self, next) {
        case (.queued, .dialing), (.queued, .cancelled), (.queued, .failed):
            true
        case (.dialing, .ringing), (.dialing, .connected):
            true
        case (.ringing, .connected):
            true
        case (.dialing, let end), (.ringing, let end):
            end.isTerminal && end != .completed
        case (.connected, .completed), (.connected, .failed), (.connected, .cancelled):
            true
        case (let end, .queued):
            // A retry (automatic, or the operator's) puts an ended call back in the queue.
            end.isTerminal
        default:
            false
        }
    }
}

public enum CallDirection: String, Sendable, Codable {
    case outbound, inbound
}
