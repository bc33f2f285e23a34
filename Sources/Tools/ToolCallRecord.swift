/// One tool call as the transcript, the call report and `/metrics` keep it: secrets masked.
public struct ToolCallRecord: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable, CaseIterable {
        case ok
        case invalidArguments = "invalid_arguments"
        case timeout
        case httpError = "http_error"
        case invalidJSON = "invalid_json"
        case tooLarge = "too_large"
        case refused
        case failed
        case unknownTool = "unknown_tool"
    }

    public var tool: String
    /// The model's arguments, secrets masked.
    public var arguments: String
    public var status: Status
    public var httpStatus: Int?
    public var milliseconds: Int
    /// What went wrong, for every status but ok.
    public var error: String?
    /// The question the tool could not answer (`LocalToolAnswer.passedOn`), kept with the call.
    public var passedOn: String?

    enum CodingKeys: String, CodingKey {
        case tool, arguments, status, milliseconds, error
        case httpStatus = "http_status"
        case passedOn = "passed_on"
    }

    public init(tool: String, arguments: String, status: Status, httpStatus: Int? = nil, milliseconds: Int, error: String? = nil,
                passedOn: String? = nil) {
        self.tool = tool
        self.arguments = arguments
        self.status = status
        self.httpStatus = httpStatus
        self.milliseconds = milliseconds
        self.error = error
        self.passedOn = passedOn
    }

    /// `[tool book_slot {"date":"…"} → ok, 142 ms]`: the transcript's line for it.
    public var transcriptLine: String {
        var outcome = status.rawValue
        if let httpStatus, status == .httpError { outcome += " \(httpStatus)" }
        return "[tool \(tool) \(arguments) → \(outcome), \(milliseconds) ms]"
    }
}
