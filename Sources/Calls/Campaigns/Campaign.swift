import Foundation

/// Where a campaign is: draft → running ⇄ paused → completed, or cancelled from anywhere not
/// ended. Pausing stops new dials and lets live calls finish.
public enum CampaignState: String, Codable, Sendable, CaseIterable {
    case draft, running, paused, completed, cancelled

    public var isEnded: Bool { self == .completed || self == .cancelled }

    public func canTransition(to next: CampaignState) -> Bool {
        switch (self, next) {
        case (.draft, .running), (.paused, .running), (.running, .paused), (.running, .completed): true
        case (.draft, .cancelled), (.running, .cancelled), (.paused, .cancelled): true
        default: false
        }
    }
}

/// Calls from a template to every contact of an uploaded list (seed 000 §12, seed 004), paced,
/// within calling windows, retried by its own policy.
public struct Campaign: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var templateId: String
    /// The template version every call of this campaign runs (fixed when the campaign is made).
    public var templateVersion: Int
    public var callerNumber: String
    public var callerDisplayName: String
    public var state: CampaignState
    /// When it may dial; nil: any time.
    public var window: CallingWindow?
    public var callsPerMinute: Int
    /// Within `outbound.max_concurrent_calls`.
    public var maxConcurrentCalls: Int
    public var retry: RetryPolicy
    public var contacts: Int
    /// Rows of the uploaded list that were not taken, each reported.
    public var skipped: Int
    /// The list's columns other than the phone column, in file order (the export's variable columns).
    public var columns: [String] = []
    public var createdAt: Date
    public var startedAt: Date?
    public var endedAt: Date?

    public struct RetryPolicy: Codable, Sendable, Equatable {
        /// Outcomes retried: no_answer, busy, rejected, failed.
        public var on: [String]
        public var maxRetries: Int
        public var delaySeconds: Int

        enum CodingKeys: String, CodingKey {
            case on
            case maxRetries = "max_retries", delaySeconds = "delay_seconds"
        }

        public init(on: [String] = ["no_answer", "busy"], maxRetries: Int = 2, delaySeconds: Int = 300) {
            self.on = on
            self.maxRetries = maxRetries
            self.delaySeconds = delaySeconds
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, name, state, window, retry, contacts, skipped, columns
        case templateId = "template_id", templateVersion = "template_version", callerNumber = "caller_number"
        case callerDisplayName = "caller_display_name", callsPerMinute = "calls_per_minute", maxConcurrentCalls = "max_concurrent_calls"
        case createdAt = "created_at", startedAt = "started_at", endedAt = "ended_at"
    }

    /// A draft; its template is set when it is stored (`CallManager.createCampaign`).
    public init(id: String = Campaign.newID(), name: String, callerNumber: String, callerDisplayName: String = "", window: CallingWindow? = nil,
                callsPerMinute: Int = 10, maxConcurrentCalls: Int = 1, retry: RetryPolicy = .init(), createdAt: Date = Date()) {
        self.id = id
        self.name = name
        self.templateId = ""
        self.templateVersion = 0
        self.callerNumber = callerNumber
        self.callerDisplayName = callerDisplayName
        self.state = .draft
        self.window = window
        self.callsPerMinute = callsPerMinute
        self.maxConcurrentCalls = maxConcurrentCalls
        self.retry = retry
        self.contacts = 0
        self.skipped = 0
        self.createdAt = createdAt
    }

    public static func newID() -> String { "cp-" + String(format: "%08x", UInt32.random(in: .min ... .max)) }

    /// Every problem with the settings at once; `globalLimit` is `outbound.max_concurrent_calls`.
    public func problems(globalLimit: Int) -> [ValidationError.Field] {
        var problems: [ValidationError.Field] = []
        if name.trimmingCharacters(in: .whitespaces).isEmpty || name.count > 200 { problems.append(.init(name: "name", message: "must be 1 to 200 characters")) }
        if let problem = VoiceBridgeConfig.displayNameProblem(callerDisplayName) { problems.append(.init(name: "caller_display_name", message: problem)) }
        if OutboundCallRequest.normalize(number: callerNumber) == nil {
            problems.append(.init(name: "caller_number", message: "must be 3 to 20 digits, optionally starting with +"))
        }
        if !(1...6000).contains(callsPerMinute) { problems.append(.init(name: "calls_per_minute", message: "must be between 1 and 6000")) }
        if !(1...globalLimit).contains(maxConcurrentCalls) {
            problems.append(.init(name: "max_concurrent_calls", message: "must be between 1 and \(globalLimit) (outbound.max_concurrent_calls)"))
        }
        let outcomes = VoiceBridgeConfig.Outbound.RetryReason.allCases.map(\.rawValue)
        if retry.on.contains(where: { !outcomes.contains($0) }) {
            problems.append(.init(name: "retry.on", message: "must list outcomes among \(outcomes.joined(separator: ", "))"))
        }
        if !(0...10).contains(retry.maxRetries) { problems.append(.init(name: "retry.max_retries", message: "must be between 0 and 10")) }
        if !(0...86_400).contains(retry.delaySeconds) { problems.append(.init(name: "retry.delay_seconds", message: "must be between 0 and 86400")) }
        if let window { problems += window.problems(prefix: "window") }
        return problems
    }
}
