/// What a supervisor listening to a live call hears: both sides mixed, or one of them.
public enum ListenSide: String, Sendable, CaseIterable {
    case mixed, caller, agent
}
