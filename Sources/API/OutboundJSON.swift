import Analysis
import Calls
import Foundation
import Hummingbird
import Realtime
import Tools

/// `POST /api/outbound/` body (seed 000 §4.1). Decoded leniently so that every problem can be
/// reported at once by `OutboundCallRequest.validated`, not only the first one JSON decoding hits.
struct CreateCallBody: Decodable {
    var callerNumber: String?
    var calleeNumber: String?
    var purpose: String?
    var questions: [String]?
    var callerDisplayName: String?
    var maxDuration: Int?
    var priority: Int?
    var scheduledAt: Date?
    var retryOnNoAnswer: Bool?
    var maxRetries: Int?
    var metadata: JSONObjectText?
    var template: String?
    var variables: [String: String]?
    var greeting: String?
    var closing: String?
    var voice: String?
    var language: String?
    var botURL: String?
    var machineDetection: String?
    var voicemailMessage: String?
    var transferTo: String?
    var noiseSuppression: Bool?
    var tools: [ToolDefinition]?
    var mcpServers: [MCPServerDeclaration]?
    var knowledge: [String]?

    enum CodingKeys: String, CodingKey {
        case purpose, questions, priority, metadata, template, variables, greeting, closing, voice, language, tools, mcpServers = "mcp_servers", knowledge
        case botURL = "bot_url", machineDetection = "machine_detection", voicemailMessage = "voicemail_message", transferTo = "transfer_to"
        case noiseSuppression = "noise_suppression"
        case callerNumber = "caller_number", calleeNumber = "callee_number", callerDisplayName = "caller_display_name"
        case maxDuration = "max_duration", scheduledAt = "scheduled_at", retryOnNoAnswer = "retry_on_no_answer", maxRetries = "max_retries"
    }

    var request: OutboundCallRequest {
        var request = OutboundCallRequest(callerNumber: callerNumber ?? "", calleeNumber: calleeNumber ?? "", purpose: purpose ?? "", questions: questions ?? [],
                                          callerDisplayName: callerDisplayName, maxDuration: maxDuration, priority: priority, scheduledAt: scheduledAt,
                                          retryOnNoAnswer: retryOnNoAnswer, maxRetries: maxRetries, metadata: metadata?.text)
        request.template = template
        request.variables = variables ?? [:]
        request.greeting = greeting
        request.closing = closing
        request.voice = voice
        request.language = language
        request.botURL = botURL
        request.machineDetection = machineDetection
        request.voicemailMessage = voicemailMessage
        request.transferTo = transferTo
        request.noiseSuppression = noiseSuppression
        request.tools = tools
        request.mcpServers = mcpServers
        request.knowledge = knowledge
        return request
    }
}

/// Any JSON value kept as its text (the request's `metadata`, validated later as an object).
struct JSONObjectText: Decodable {
    var text: String

    init(from decoder: Decoder) throws {
        let value = try decoder.singleValueContainer().decode(AnyJSON.self)
        let data = try JSONSerialization.data(withJSONObject: value.object, options: [.sortedKeys, .fragmentsAllowed])
        text = String(decoding: data, as: UTF8.self)
    }
}

/// A JSON value of any shape, decoded into Foundation objects.
struct AnyJSON: Decodable {
    var object: Any

    init(from decoder: Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            var dictionary: [String: Any] = [:]
            for key in keyed.allKeys { dictionary[key.stringValue] = try keyed.decode(AnyJSON.self, forKey: key).object }
            object = dictionary
        } else if var list = try? decoder.unkeyedContainer() {
            var array: [Any] = []
            while !list.isAtEnd { array.append(try list.decode(AnyJSON.self).object) }
            object = array
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() { object = NSNull() }
            else if let b = try? single.decode(Bool.self) { object = b }
            else if let i = try? single.decode(Int.self) { object = i }
            else if let d = try? single.decode(Double.self) { object = d }
            else { object = try single.decode(String.self) }
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// 202 answer to a created call (seed 000 §6.2).
struct CreatedCall: ResponseEncodable {
    var outboundId: String
    var state: String
    var createdAt: Date
    var message: String

    enum CodingKeys: String, CodingKey {
        case state, message
        case outboundId = "outbound_id", createdAt = "created_at"
    }
}

/// One page of a list: its items, how many there are in all, and where the page is.
struct ListPage<Item: Encodable & Sendable>: ResponseEncodable {
    var items: [Item]
    var total: Int
    var limit: Int
    var offset: Int
}

typealias CallPage = ListPage<CallView>

struct CallStats: ResponseEncodable {
    var total: Int
    var completed: Int
    var inProgress: Int
    var queued: Int
    var noAnswer: Int
    var busy: Int
    var failed: Int
    /// Completed calls whose every question got an answer, as a percentage of ended calls.
    var successRate: Double
    var averageDurationSeconds: Double
    var reports: ReportTotals

    /// Summed over the reports of every call that connected.
    struct ReportTotals: Encodable {
        var calls: Int
        var estimatedCost: Double
        var currency: String
        var turns: Int
        var bargeIns: Int
        var meanFirstAudioMs: Double

        init(_ totals: CallStore.Stats.ReportTotals) {
            calls = totals.calls
            estimatedCost = (totals.estimatedCost * 10_000).rounded() / 10_000
            currency = totals.currency
            turns = totals.turns
            bargeIns = totals.bargeIns
            meanFirstAudioMs = totals.meanFirstAudioMilliseconds.rounded()
        }

        enum CodingKeys: String, CodingKey {
            case calls, currency, turns
            case estimatedCost = "estimated_cost", bargeIns = "barge_ins", meanFirstAudioMs = "mean_first_audio_ms"
        }
    }

    enum CodingKeys: String, CodingKey {
        case total, completed, queued, busy, failed, reports
        case inProgress = "in_progress", noAnswer = "no_answer", successRate = "success_rate", averageDurationSeconds = "average_duration_seconds"
    }
}

/// Seed 000 §6.2 `GET /api/outbound/{id}/result`.
struct CallResultView: ResponseEncodable {
    var outboundId: String
    var state: String
    var callerNumber: String
    var calleeNumber: String
    var purpose: String
    var durationSeconds: Int?
    var taskCompleted: Bool?
    var answers: [Answer]
    var summary: String?
    /// A flow's call: the end it reached, the steps it went through, and its fields, typed.
    var outcome: String?
    var flowPath: [String]?
    var fields: [String: JSONValue]?
    /// A caller who switched language: the languages spoken, the call's own first, in order.
    var languagesSpoken: [String]?
    /// The post-call analysis, once it ran (its template asked for one).
    var analysis: CallAnalysis?
    var transcript: [Line]
    var aiTurns: Int?
    var customerTurns: Int?
    var recordingURL: String?
    var createdAt: Date
    var answeredAt: Date?
    var completedAt: Date?

    struct Answer: Codable {
        var questionId: String
        var questionText: String
        var status: String
        var answerText: String?
        var answerSummary: String?
        var confidence: Double
        enum CodingKeys: String, CodingKey {
            case status, confidence
            case questionId = "question_id", questionText = "question_text", answerText = "answer_text", answerSummary = "answer_summary"
        }
    }

    struct Line: Codable {
        var timestamp: Double
        var speaker: String
        var text: String
        var latencyMs: Int?
        enum CodingKeys: String, CodingKey {
            case timestamp, speaker, text
            case latencyMs = "latency_ms"
        }
    }

    enum CodingKeys: String, CodingKey {
        case state, purpose, answers, summary, transcript, outcome, fields, analysis
        case flowPath = "flow_path", languagesSpoken = "languages_spoken"
        case outboundId = "outbound_id", callerNumber = "caller_number", calleeNumber = "callee_number"
        case durationSeconds = "duration_seconds", taskCompleted = "task_completed", aiTurns = "ai_turns", customerTurns = "customer_turns"
        case recordingURL = "recording_url", createdAt = "created_at", answeredAt = "answered_at", completedAt = "completed_at"
    }
}

/// `GET /api/outbound/{id}/report`: what the call's media path did (empty before it connects).
struct CallReportView: ResponseEncodable {
    var outboundId: String
    /// True while the call runs: the figures are still growing.
    var live: Bool
    var report: CallReport

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(outboundId, forKey: .outboundId)
        try container.encode(live, forKey: .live)
        try report.encode(to: encoder)
    }

    enum CodingKeys: String, CodingKey { case outboundId = "outbound_id", live }
}

struct AfterCallToolView: Codable {
    var tool: String
    var state: String
    var attemptCount: Int
    var lastStatus: Int?
    var lastError: String?
    var nextAttemptAt: Date?
    var deliveredAt: Date?

    enum CodingKeys: String, CodingKey {
        case tool, state
        case attemptCount = "attempt_count", lastStatus = "last_status", lastError = "last_error", nextAttemptAt = "next_attempt_at", deliveredAt = "delivered_at"
    }

    init(_ run: AfterCallToolRun) {
        tool = run.toolName; state = run.state.rawValue; attemptCount = run.attemptCount; lastStatus = run.lastStatus
        lastError = run.lastError; nextAttemptAt = run.nextAttemptAt; deliveredAt = run.deliveredAt
    }
}
