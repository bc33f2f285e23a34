import Foundation
import Tools

/// One call, outbound or inbound: every field of seed 000's OutboundCallRecord plus its result.
public struct CallRecord: Sendable, Equatable, Codable {
    public var outboundId: String
    public var callId: String?
    public var direction: CallDirection
    public var callerNumber: String
    public var calleeNumber: String
    public var callerDisplayName: String
    public var purpose: String
    public var questions: [String]
    public var maxDuration: Int
    public var priority: Int
    public var scheduledAt: Date?
    public var retryOnNoAnswer: Bool
    public var maxRetries: Int
    public var retryInterval: Int
    public var state: CallState
    public var createdAt: Date
    public var startedAt: Date?
    public var answeredAt: Date?
    public var completedAt: Date?
    public var nextAttemptAt: Date?
    public var attemptCount: Int
    public var failureReason: String?
    /// The request's `metadata` object, kept as the JSON text it arrived as.
    public var metadata: String?
    public var requestedBy: String
    // Result (schema v2).
    public var summary: String?
    public var taskCompleted: Bool?
    public var durationSeconds: Int?
    public var aiTurns: Int?
    public var customerTurns: Int?
    /// The state the latest attempt ended in, kept while the call waits in the queue for its next
    /// one (schema v5): a retried call reads `queued` with `last_outcome` `busy`.
    public var lastOutcome: String?
    /// The template (and its version) the call was made from (schema v7).
    public var templateId: String?
    public var templateVersion: Int?
    /// What the agent says first and last, placeholders but `{display_name}` and `{purpose}`
    /// filled; nil: the server's configured lines.
    public var greeting: String?
    public var closing: String?
    /// The engine's voice for this call; nil: the configured one.
    public var voice: String?
    /// The language the call is held in ("en", "ko"); nil: `engine.language` (schema v20).
    public var language: String?
    /// The media-stream bot that runs the call instead of the server's engine (schema v9).
    public var botUrl: String?
    /// human, machine or unknown: the answering-machine verdict, ours or the carrier's (schema v10); nil: not detected.
    public var answeredBy: String?
    /// When our verdict was made, in ms after answer (schema v12).
    public var answeredByMs: Int?
    /// `hangup` or `leave_message` when an answering machine picks up; nil: no detection (schema v12).
    public var machineDetection: String?
    /// What `leave_message` says; nil: the configured message.
    public var voicemailMessage: String?
    /// Where a caller who asks for a person is handed (number or SIP URI); nil: `transfer.target` (schema v13).
    public var transferTo: String?
    /// The caller's audio through noise suppression, or not; nil: `engine.noise_suppression` (schema v22).
    public var noiseSuppression: Bool?
    /// The operator's tools the agent may call, as declared (secrets by reference only) (schema v17).
    public var tools: [ToolDefinition]?
    /// MCP servers whose tools the agent may call, listed when the call starts (schema v17).
    public var mcpServers: [MCPServerDeclaration]?
    /// Knowledge collections the agent searches (schema v18).
    public var knowledge: [String]?
    /// A flow's call: the label of the end step it reached (schema v19).
    public var outcome: String?
    /// A flow's call: the path and fields as `CallFlowResult` JSON, sealed like the summary (schema v19).
    public var flowResult: String?
    /// The post-call analysis as `CallAnalysis` JSON, sealed (schema v19); nil until it ran.
    public var analysis: String?
    /// Where the call was handed, and how that went: answered, busy, no_answer, failed.
    public var transferredTo: String?
    public var transferOutcome: String?
    /// The campaign the call belongs to (schema v8).
    public var campaignId: String?
    /// Outcomes retried automatically, comma-separated (a campaign's policy); nil: `outbound.retry.retry_on`.
    public var retryOn: String?
    /// The node that claimed the call to dial it, or answered it (schema v15); nil: waiting for any node.
    public var nodeId: String?
    /// `calleeNumber` in E.164, as the store's `NumberPlan` reads it (schema v16): what the
    /// do-not-call list and the one-open-call rule compare. Set by the store on insert.
    public var calleeCanonical: String?
    /// The W3C `traceparent` every attempt of the call is traced under (schema v23): its
    /// "call queued" span, itself under the request's own trace when the request carried one.
    /// Kept so another node that takes the call over continues the same trace. Nil: not traced.
    public var traceParent: String?
    /// A call whose caller switched language: the languages spoken, the call's own first, in the
    /// order they were switched to (schema v24); nil: it stayed in one (or its engine does not tell).
    public var languagesSpoken: [String]?

    public init(
        outboundId: String, direction: CallDirection = .outbound, callerNumber: String, calleeNumber: String,
        callerDisplayName: String = "", purpose: String, questions: [String], maxDuration: Int = 180,
        priority: Int = 5, scheduledAt: Date? = nil, retryOnNoAnswer: Bool = true, maxRetries: Int = 2,
        retryInterval: Int = 300, createdAt: Date = Date(), metadata: String? = nil, requestedBy: String = "operator"
    ) {
        self.outboundId = outboundId
        self.direction = direction
        self.callerNumber = callerNumber
        self.calleeNumber = calleeNumber
        self.callerDisplayName = callerDisplayName
        self.purpose = purpose
        self.questions = questions
        self.maxDuration = maxDuration
        self.priority = priority
        self.scheduledAt = scheduledAt
        self.retryOnNoAnswer = retryOnNoAnswer
        self.maxRetries = maxRetries
        self.retryInterval = retryInterval
        self.state = .queued
        self.createdAt = createdAt
        self.attemptCount = 0
        self.metadata = metadata
        self.requestedBy = requestedBy
    }

    /// A new call id: `ob-` (`ib-` inbound, `br-` from the browser) and 8 hex digits.
    public static func newID(direction: CallDirection = .outbound) -> String {
        direction.idPrefix + String(format: "%08x", UInt32.random(in: .min ... .max))
    }
}

/// An append-only event: what the event WebSocket announces, stored first (ids are the order).
public struct CallEvent: Sendable, Equatable, Codable {
    public var id: Int64?
    public var outboundId: String
    public var type: String
    /// JSON object with the event's details.
    public var payload: String
    public var createdAt: Date

    public init(outboundId: String, type: String, payload: String = "{}", createdAt: Date = Date()) {
        self.outboundId = outboundId
        self.type = type
        self.payload = payload
        self.createdAt = createdAt
    }
}
