/// What an `ask` step's field holds: the answer kinds the local dialogue extracts, plus a choice
/// among the step's `choices`.
public enum FlowFieldKind: String, Codable, Sendable, CaseIterable {
    case yesNo = "yes_no"
    case choice
    case name
    case number
    case dateTime = "date_time"
    case phoneNumber = "phone_number"
    case freeText = "free_text"
}
