/// One step through a phone menu whose keys are known (a template's `menu_path`): wait this long
/// after the call is answered (or after the previous step's keys), then press these keys. The
/// agent says nothing while a known path is pressed and starts the conversation when a person speaks.
public struct MenuPathStep: Codable, Sendable, Equatable {
    /// Keys pressed one after another, 200 ms apart ("2", "1#").
    public var keys: String
    /// Seconds to wait before pressing: long enough for the menu to say the option (a key pressed
    /// early is taken by most menus, but not by all).
    public var waitSeconds: Double

    enum CodingKeys: String, CodingKey {
        case keys, waitSeconds = "wait_seconds"
    }

    public init(keys: String, waitSeconds: Double) {
        self.keys = keys
        self.waitSeconds = waitSeconds
    }

    public static let stepsMax = 10
    public static let keysMax = 20
    public static let waitSecondsMax = 120.0

    /// What is wrong with `path`, for a template's `menu_path` field; nil: nothing.
    public static func problem(in path: [MenuPathStep]) -> String? {
        guard (1...stepsMax).contains(path.count) else { return "must hold 1 to \(stepsMax) steps (or be left out)" }
        for (index, step) in path.enumerated() {
            guard PhoneMenu.areKeys(step.keys, atMost: keysMax) else {
                return "step \(index + 1): keys must be 1 to \(keysMax) of 0–9, * and #"
            }
            guard step.waitSeconds.isFinite, (0...waitSecondsMax).contains(step.waitSeconds) else {
                return "step \(index + 1): wait_seconds must be 0 to \(Int(waitSecondsMax))"
            }
        }
        return nil
    }
}
