/// A call's life (seed 000 §4.3), as a state machine with its transitions spelled out.
public enum CallState: String, Sendable, Codable, CaseIterable {
    case queued, dialing, ringing, connected
    case completed, noAnswer = "no_answer", busy, rejected, failed, cancelled
    /// An answering machine picked up and the call hung up (`machine_detection: hangup`); retried like `no_answer`.
    case voicemail
    /// An answering machine picked up and the agent left a message after its greeting (`machine_detection: leave_message`).
    case voicemailLeft = "voicemail_left"
    /// A call screener answered for the callee and the person never came on: the screener turned
    /// the call away, or the line ended (or the wait ran out) while the agent waited for them.
    case screenedOut = "screened_out"

    /// States in which a call holds telephony resources; a crash leaves these to be reconciled.
    public var isLive: Bool {
        switch self {
        case .dialing, .ringing, .connected: true
        default: false
        }
    }

    public var isTerminal: Bool {
        switch self {
        case .completed, .noAnswer, .busy, .rejected, .failed, .cancelled, .voicemail, .voicemailLeft, .screenedOut: true
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
            end.isTerminal && ![.completed, .voicemail, .voicemailLeft, .screenedOut].contains(end)   // those need an answer
        case (.connected, .completed), (.connected, .failed), (.connected, .cancelled), (.connected, .voicemail), (.connected, .voicemailLeft),
             (.connected, .screenedOut):
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
    /// The dashboard's "Try it": the operator's browser microphone is the caller.
    case browser

    /// The prefix of the call's state events (`outbound_connected`, `inbound_completed`): a
    /// browser call comes in, so its events are an inbound call's.
    public var eventPrefix: String { self == .outbound ? "outbound" : "inbound" }

    /// Its call ids' prefix: `ob-`, `ib-`, `br-`.
    var idPrefix: String {
        switch self {
        case .outbound: "ob-"
        case .inbound: "ib-"
        case .browser: "br-"
        }
    }
}
