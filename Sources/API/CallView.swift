import Calls
import Foundation
import Hummingbird
import Tools
import TraceContext

/// A call as the API shows it. In lists the callee number is masked; in detail it is complete.
struct CallView: ResponseEncodable {
    var outboundId: String
    var direction: String
    var state: String
    var callerNumber: String
    var calleeNumber: String
    var callerDisplayName: String
    var purpose: String
    var questions: [String]
    var maxDuration: Int
    var priority: Int
    var attemptCount: Int
    var maxRetries: Int
    var retryOnNoAnswer: Bool
    var failureReason: String?
    var taskCompleted: Bool?
    var durationSeconds: Int?
    var summary: String?
    /// A caller who switched language: the languages spoken, the call's own first, in order.
    var languagesSpoken: [String]?
    /// A flow's call: the label of the end step it reached.
    var outcome: String?
    var createdAt: Date
    var scheduledAt: Date?
    var startedAt: Date?
    var answeredAt: Date?
    var completedAt: Date?
    var nextAttemptAt: Date?
    /// What the latest attempt ended in (shown while a retry waits in the queue).
    var lastOutcome: String?
    /// The template and version the call was made from.
    var templateId: String?
    var templateVersion: Int?
    var greeting: String?
    var closing: String?
    var voice: String?
    var language: String?
    var botURL: String?
    var answeredBy: String?
    /// When VoiceBridge's own detector decided `answered_by`, ms after answer.
    var answeredByMs: Int?
    var machineDetection: String?
    var voicemailMessage: String?
    var transferTo: String?
    /// Whether the caller's audio went through noise suppression; nil: the server's setting.
    var noiseSuppression: Bool?
    /// Where the call was handed to a person, and how that went.
    var transferredTo: String?
    var transferOutcome: String?
    /// The operator's tools the agent may call (secrets by reference only).
    var tools: [ToolDefinition]?
    var mcpServers: [MCPServerDeclaration]?
    var knowledge: [String]?
    /// Detail only: the state timeline.
    var timeline: [TimelineEntry]?
    /// Detail only: every attempt with its outcome and times.
    var attempts: [Attempt]?
    /// Detail only: the webhook deliveries that report the call, with their attempts.
    var webhooks: [DeliveryView]?
    /// The call's `on_end` tools: how sending them its result went.
    var afterCallTools: [AfterCallToolView]?
    /// The call's trace in the operator's OpenTelemetry backend; nil: not traced.
    var traceID: String?

    struct Attempt: Codable {
        var number: Int
        var startedAt: Date
        var endedAt: Date?
        var outcome: String?
        var reason: String?

        init(_ a: CallAttempt) {
            number = a.attemptNumber; startedAt = a.startedAt; endedAt = a.endedAt; outcome = a.outcome; reason = a.failureReason
        }

        enum CodingKeys: String, CodingKey {
            case number, outcome, reason
            case startedAt = "started_at", endedAt = "ended_at"
        }
    }

    struct TimelineEntry: Codable {
        var state: String
        var at: Date
        var reason: String?
    }

    enum CodingKeys: String, CodingKey {
        case direction, state, purpose, questions, priority, summary, outcome, timeline, attempts, webhooks, greeting, closing, voice, language, tools, mcpServers = "mcp_servers", knowledge
        case afterCallTools = "after_call_tools", traceID = "trace_id"
        case templateId = "template_id", templateVersion = "template_version", botURL = "bot_url", answeredBy = "answered_by"
        case answeredByMs = "answered_by_ms", machineDetection = "machine_detection", voicemailMessage = "voicemail_message"
        case transferTo = "transfer_to", transferredTo = "transferred_to", transferOutcome = "transfer_outcome"
        case noiseSuppression = "noise_suppression", languagesSpoken = "languages_spoken"
        case outboundId = "outbound_id", callerNumber = "caller_number", calleeNumber = "callee_number"
        case callerDisplayName = "caller_display_name", maxDuration = "max_duration", attemptCount = "attempt_count"
        case maxRetries = "max_retries", retryOnNoAnswer = "retry_on_no_answer", failureReason = "failure_reason"
        case taskCompleted = "task_completed", durationSeconds = "duration_seconds", createdAt = "created_at"
        case scheduledAt = "scheduled_at", startedAt = "started_at", answeredAt = "answered_at", completedAt = "completed_at"
        case nextAttemptAt = "next_attempt_at", lastOutcome = "last_outcome"
    }

    init(_ c: CallRecord, masked: Bool, timeline: [TimelineEntry]? = nil, attempts: [Attempt]? = nil, webhooks: [DeliveryView]? = nil,
         afterCallTools: [AfterCallToolRun]? = nil) {
        self.afterCallTools = afterCallTools?.map(AfterCallToolView.init)
        outboundId = c.outboundId; direction = c.direction.rawValue; state = c.state.rawValue
        callerNumber = c.callerNumber; calleeNumber = masked ? Self.mask(c.calleeNumber) : c.calleeNumber
        callerDisplayName = c.callerDisplayName; purpose = c.purpose; questions = c.questions
        maxDuration = c.maxDuration; priority = c.priority; attemptCount = c.attemptCount; maxRetries = c.maxRetries
        retryOnNoAnswer = c.retryOnNoAnswer; failureReason = c.failureReason; taskCompleted = c.taskCompleted
        durationSeconds = c.durationSeconds; summary = c.summary; languagesSpoken = c.languagesSpoken; outcome = c.outcome; createdAt = c.createdAt; scheduledAt = c.scheduledAt
        startedAt = c.startedAt; answeredAt = c.answeredAt; completedAt = c.completedAt; nextAttemptAt = c.nextAttemptAt
        lastOutcome = c.lastOutcome
        templateId = c.templateId; templateVersion = c.templateVersion; greeting = c.greeting; closing = c.closing; voice = c.voice; language = c.language; botURL = c.botUrl; answeredBy = c.answeredBy
        answeredByMs = c.answeredByMs; machineDetection = c.machineDetection; voicemailMessage = c.voicemailMessage
        transferTo = c.transferTo; transferredTo = c.transferredTo; transferOutcome = c.transferOutcome
        noiseSuppression = c.noiseSuppression
        tools = c.tools
        mcpServers = c.mcpServers
        knowledge = c.knowledge
        traceID = c.traceParent.flatMap(TraceParent.init).map { String($0.traceID) }
        self.timeline = timeline
        self.attempts = attempts
        self.webhooks = webhooks
    }

    /// Seed 000 §11: numbers are masked in list views — the first three and last two digits stay.
    static func mask(_ number: String) -> String {
        guard number.contains(where: \.isNumber) else { return number }   // "browser": no number to hide
        let characters = Array(number)
        guard characters.count > 5 else { return String(repeating: "*", count: characters.count) }
        return String(characters.prefix(3)) + String(repeating: "*", count: characters.count - 5) + String(characters.suffix(2))
    }
}
