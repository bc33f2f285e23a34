/// How handing a call to a person went.
public enum TransferOutcome: String, Sendable, Equatable {
    /// The person answered: the caller is with them.
    case answered
    case busy
    case noAnswer = "no_answer"
    /// The person's line failed, or the carrier would not transfer.
    case failed
    /// The carrier took the call to dial the person (Twilio's `<Dial>`); how that went is the carrier's to report.
    case handedOff = "handed_off"
    /// A warm transfer's person answered but did not take the call (key 2, hung up, or no decision).
    case declined

    /// Whether the caller has left this call for the person.
    public var leftTheCall: Bool { self == .answered || self == .handedOff }

    /// Said to the caller when the agent takes the call back.
    public var apology: String {
        switch self {
        case .answered, .handedOff: ""
        case .busy: "I'm sorry, everyone is busy right now."
        case .noAnswer: "I'm sorry, nobody answered."
        case .failed: "I'm sorry, I could not connect you."
        case .declined: "I'm sorry, nobody can take your call right now."
        }
    }
}
