import Foundation
import Knowledge
import Tools

/// What an operator asks for (seed 000 §4.1), validated before anything is stored.
public struct OutboundCallRequest: Sendable, Equatable {
    public var callerNumber: String
    public var calleeNumber: String
    public var purpose: String
    public var questions: [String]
    public var callerDisplayName: String?
    public var maxDuration: Int?
    public var priority: Int?
    public var scheduledAt: Date?
    public var retryOnNoAnswer: Bool?
    public var maxRetries: Int?
    /// The request's `metadata` object as JSON text (`simulated_answers` is read from it).
    public var metadata: String?
    /// A template's id or name: its fields fill whatever this request leaves out.
    public var template: String?
    /// Values for `{placeholders}` in the purpose, questions, greeting and closing.
    public var variables: [String: String] = [:]
    public var greeting: String?
    public var closing: String?
    public var voice: String?
    /// The language the call is held in ("en", "ko"); nil: the template's, else `engine.language`.
    public var language: String?
    /// A media-stream bot (`ws://`/`wss://`, Twilio's dialect) that runs the call instead of the server's engine.
    public var botURL: String?
    /// `off`, `hangup` or `leave_message` when an answering machine picks up; nil: the configured action.
    public var machineDetection: String?
    /// What `leave_message` says; nil: the configured message.
    public var voicemailMessage: String?
    /// Where a caller who asks for a person is handed; nil: `transfer.target`.
    public var transferTo: String?
    /// Noise suppression on the caller's audio, or not; nil: the template's, else `engine.noise_suppression`.
    public var noiseSuppression: Bool?
    /// The operator's tools for this call; nil: the template's.
    public var tools: [ToolDefinition]?
    /// MCP servers whose tools the agent may call; nil: the template's.
    public var mcpServers: [MCPServerDeclaration]?
    /// Knowledge collections the agent searches; nil: the template's.
    public var knowledge: [String]?

    public init(callerNumber: String, calleeNumber: String, purpose: String, questions: [String], callerDisplayName: String? = nil,
                maxDuration: Int? = nil, priority: Int? = nil, scheduledAt: Date? = nil, retryOnNoAnswer: Bool? = nil,
                maxRetries: Int? = nil, metadata: String? = nil) {
        self.callerNumber = callerNumber
        self.calleeNumber = calleeNumber
        self.purpose = purpose
        self.questions = questions
        self.callerDisplayName = callerDisplayName
        self.maxDuration = maxDuration
        self.priority = priority
        self.scheduledAt = scheduledAt
        self.retryOnNoAnswer = retryOnNoAnswer
        self.maxRetries = maxRetries
        self.metadata = metadata
    }
}

/// Every invalid field of a request, each with its own message.
public struct ValidationError: Error, Equatable, CustomStringConvertible {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var message: String
    }

    public var fields: [Field]

    public var description: String { fields.map { "\($0.name): \($0.message)" }.joined(separator: "; ") }
}

extension OutboundCallRequest {
    /// Digits with an optional leading +; spaces, dashes, dots and parentheses are dropped.
    public static func normalize(number: String) -> String? {
        var text = number.trimmingCharacters(in: .whitespaces)
        let plus = text.hasPrefix("+")
        if plus { text.removeFirst() }
        let digits = text.filter { !" -.()".contains($0) }
        guard (3...20).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return (plus ? "+" : "") + digits
    }

    /// The request with numbers normalized, or every problem at once.
    public func validated(maxCallDuration: Int, allowedCallerIDs: [String], numbers: NumberPlan = .korea) throws(ValidationError) -> OutboundCallRequest {
        var problems: [ValidationError.Field] = []
        var request = self
        if let caller = Self.normalize(number: callerNumber) { request.callerNumber = caller } else {
            problems.append(.init(name: "caller_number", message: "must be 3 to 20 digits, optionally starting with +"))
        }
        if let callee = Self.normalize(number: calleeNumber) { request.calleeNumber = callee } else {
            problems.append(.init(name: "callee_number", message: "must be 3 to 20 digits, optionally starting with +"))
        }
        if !allowedCallerIDs.isEmpty, !allowedCallerIDs.contains(where: { numbers.canonical($0) == numbers.canonical(request.callerNumber) }) {
            problems.append(.init(name: "caller_number", message: "is not an allowed caller ID"))
        }
        if let language, !Self.isLanguageCode(language) {
            problems.append(.init(name: "language", message: "must be a language code such as en or ko"))
        }
        request.purpose = purpose.trimmingCharacters(in: .whitespacesAndNewlines)
        if request.purpose.isEmpty { problems.append(.init(name: "purpose", message: "must not be empty")) }
        if request.purpose.count > 1000 { problems.append(.init(name: "purpose", message: "must be at most 1000 characters")) }
        request.questions = questions.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let fewest = (knowledge ?? []).isEmpty ? 1 : 0   // none: the call only answers from its knowledge collections
        if !(fewest...20).contains(request.questions.count) {
            problems.append(.init(name: "questions", message: "must hold 1 to 20 questions" + (fewest == 1 ? " (or none, with knowledge collections to answer from)" : "")))
        }
        if request.questions.contains(where: \.isEmpty) { problems.append(.init(name: "questions", message: "must not contain empty questions")) }
        if let d = maxDuration, !(10...maxCallDuration).contains(d) {
            problems.append(.init(name: "max_duration", message: "must be between 10 and \(maxCallDuration) seconds"))
        }
        if let name = callerDisplayName, let problem = VoiceBridgeConfig.displayNameProblem(name) {
            problems.append(.init(name: "caller_display_name", message: problem))
        }
        problems += TextLimits.problems([("greeting", greeting, TextLimits.greeting), ("closing", closing, TextLimits.closing),
                                         ("voice", voice, TextLimits.voice), ("bot_url", botURL, TextLimits.url),
                                         ("transfer_to", transferTo, TextLimits.transferTarget), ("metadata", metadata, TextLimits.metadata)]
                                        + request.questions.enumerated().map { ("questions.\($0.offset)", $0.element, TextLimits.question) }
                                        + variables.sorted { $0.key < $1.key }.map { ("variables.\($0.key)", $0.value, TextLimits.variableValue) })
        if let p = priority, !(1...10).contains(p) { problems.append(.init(name: "priority", message: "must be between 1 and 10")) }
        if let r = maxRetries, !(0...10).contains(r) { problems.append(.init(name: "max_retries", message: "must be between 0 and 10")) }
        problems += ToolDefinition.problems(in: tools ?? []).map { .init(name: $0.field, message: $0.message) }
        problems += MCPServerDeclaration.problems(in: mcpServers ?? []).map { .init(name: $0.field, message: $0.message) }
        problems += KnowledgeCollection.problems(in: knowledge ?? []).map { .init(name: $0.field, message: $0.message) }
        if let metadata {
            let object = try? JSONSerialization.jsonObject(with: Data(metadata.utf8)) as? [String: Any]
            if object == nil { problems.append(.init(name: "metadata", message: "must be a JSON object")) }
            if let answers = object?["simulated_answers"], !(answers is [String]) {
                problems.append(.init(name: "metadata.simulated_answers", message: "must be a list of strings"))
            }
        }
        guard problems.isEmpty else { throw ValidationError(fields: problems) }
        return request
    }

    /// The request with what it leaves out taken from `template`, and every `{placeholder}` filled
    /// from `variables` (over the template's defaults). A placeholder with no (or an empty) value is an error
    /// naming it — the agent never says "{name}" aloud. The greeting and closing keep
    /// `{display_name}` and `{purpose}`, which the conversation fills.
    public func applying(_ template: CallTemplate?) throws(ValidationError) -> OutboundCallRequest {
        var r = self
        if let template {
            if r.purpose.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { r.purpose = template.purpose }
            if template.flow != nil, !r.questions.isEmpty {
                throw ValidationError(fields: [.init(name: "questions", message: "the template runs a flow, which asks its own questions: leave questions out")])
            }
            if r.questions.isEmpty { r.questions = template.questions }
            r.greeting = greeting ?? template.greeting
            r.closing = closing ?? template.closing
            r.voice = voice ?? template.voice
            r.language = language ?? template.language
            r.botURL = botURL ?? template.botURL
            r.machineDetection = machineDetection ?? template.machineDetection
            r.voicemailMessage = voicemailMessage ?? template.voicemailMessage
            r.transferTo = transferTo ?? template.transferTo
            r.noiseSuppression = noiseSuppression ?? template.noiseSuppression
            r.tools = tools ?? template.tools
            r.mcpServers = mcpServers ?? template.mcpServers
            r.knowledge = knowledge ?? template.knowledge
            r.maxDuration = maxDuration ?? template.maxDuration
            r.retryOnNoAnswer = retryOnNoAnswer ?? template.retryOnNoAnswer
            r.maxRetries = maxRetries ?? template.maxRetries
            r.variables = template.variables.merging(variables) { _, given in given }
        }
        var values = r.variables.filter { !$0.value.trimmingCharacters(in: .whitespaces).isEmpty }   // an empty cell is no value
        r.purpose = Placeholders.fill(r.purpose, with: values)
        r.questions = r.questions.map { Placeholders.fill($0, with: values) }
        for name in CallTemplate.builtInPlaceholders { values[name] = "{\(name)}" }   // left for the conversation
        r.greeting = r.greeting.map { Placeholders.fill($0, with: values) }
        r.closing = r.closing.map { Placeholders.fill($0, with: values) }
        r.voicemailMessage = r.voicemailMessage.map { Placeholders.fill($0, with: values) }
        var problems: [ValidationError.Field] = []
        if let action = r.machineDetection, VoiceBridgeConfig.Outbound.MachineDetection.Action(rawValue: action) == nil {
            problems.append(.init(name: "machine_detection", message: "must be off, hangup or leave_message"))
        }
        if let target = r.transferTo, let problem = VoiceBridgeConfig.transferTargetProblem(target) {
            problems.append(.init(name: "transfer_to", message: problem))
        }
        if let message = r.voicemailMessage, message.trimmingCharacters(in: .whitespaces).isEmpty || message.count > 1000 {
            problems.append(.init(name: "voicemail_message", message: "must be 1 to 1000 characters"))
        }
        let texts = [("purpose", r.purpose), ("greeting", r.greeting ?? ""), ("closing", r.closing ?? ""), ("voicemail_message", r.voicemailMessage ?? "")]
            + r.questions.enumerated().map { ("questions.\($0.offset)", $0.element) }
        for (field, text) in texts {
            let unknown = Placeholders.names(in: text).filter { !["greeting", "closing", "voicemail_message"].contains(field) || !CallTemplate.builtInPlaceholders.contains($0) }
            if !unknown.isEmpty {
                problems.append(.init(name: field, message: "has no value for \(unknown.map { "{\($0)}" }.joined(separator: ", ")): give it in `variables`"))
            }
        }
        guard problems.isEmpty else { throw ValidationError(fields: problems) }
        return r
    }

    /// "en", "ko", "en-US": two lower-case letters, perhaps a region.
    public static func isLanguageCode(_ code: String) -> Bool {
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, first.count == 2, first.allSatisfy({ $0.isASCII && $0.isLowercase }), parts.count <= 2 else { return false }
        return parts.count == 1 || (2...4).contains(parts[1].count) && parts[1].allSatisfy { $0.isASCII && $0.isLetter }
    }

    /// `metadata.simulated_answers`, if any.
    public var simulatedAnswers: [String]? {
        guard let metadata, let object = try? JSONSerialization.jsonObject(with: Data(metadata.utf8)) as? [String: Any] else { return nil }
        return object["simulated_answers"] as? [String]
    }
}
