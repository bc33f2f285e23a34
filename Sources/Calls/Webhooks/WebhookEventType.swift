/// The events an endpoint can subscribe to, as the `type` of each delivery's body.
public enum WebhookEventType: String, Sendable, Codable, CaseIterable {
    /// A call ended after a conversation (its answers and summary are in `data`).
    case callCompleted = "call.completed"
    /// A call ended without one — failed, busy, no answer, rejected — and no retry is left.
    case callFailed = "call.failed"
    /// The operator (or the do-not-call list, or the campaign) cancelled the call.
    case callCancelled = "call.cancelled"
    /// An answering machine picked up: the call hung up (`voicemail`) or left a message (`voicemail_left`).
    case callVoicemail = "call.voicemail"
    /// A call screener answered and the person never came on (`screened_out`).
    case callScreenedOut = "call.screened_out"
    /// A completed call's post-call analysis is stored (its template asked for one).
    case callAnalyzed = "call.analyzed"
    case campaignCompleted = "campaign.completed"
    case campaignCancelled = "campaign.cancelled"

    /// The event a call's final state announces.
    public init(finalState state: CallState) {
        switch state {
        case .completed: self = .callCompleted
        case .cancelled: self = .callCancelled
        case .voicemail, .voicemailLeft: self = .callVoicemail
        case .screenedOut: self = .callScreenedOut
        default: self = .callFailed
        }
    }
}
