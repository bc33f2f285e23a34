import Analysis
import Dialogue
import Flows
import Foundation
import Knowledge
import Tools

/// A reusable call (seed 000 §12; seed 004's "skillbases"): purpose, questions and what the agent
/// says, with `{variables}` filled per call. Editing makes a new version; a call records the id
/// and version it ran with, so an old result stays explainable after the template changed.
public struct CallTemplate: Codable, Sendable, Equatable {
    public var id: String
    public var version: Int
    public var name: String
    public var purpose: String
    public var questions: [String]
    /// Said first; `{display_name}`, `{purpose}` and any variable may appear. Nil: the server's greeting.
    public var greeting: String?
    /// Said last. Nil: the server's closing.
    public var closing: String?
    /// The language its calls are held in ("en", "ko"); nil: `engine.language`. The server must hold it.
    public var language: String?
    /// The engine's voice for these calls (espeak-ng voice for the local engine, the provider's otherwise).
    public var voice: String?
    /// Must match the server's `engine.mode` when set: a template written for one engine is not
    /// silently run on another.
    public var engineMode: String?
    /// A media-stream bot that runs these calls instead of the server's engine.
    public var botURL: String?
    /// Keys the callee may press instead of answering aloud, and the words each stands for
    /// (`{"1": "yes", "2": "no"}`), for questions that say "press 1 for yes".
    public var keypad: [String: String]?
    /// `off`, `hangup` or `leave_message` when an answering machine picks up; nil: the server's action.
    public var machineDetection: String?
    /// What `leave_message` says; nil: the server's message.
    public var voicemailMessage: String?
    /// Where a caller who asks for a person is handed; nil: the server's `transfer.target`.
    public var transferTo: String?
    /// The keys through a phone menu known in advance, each after its wait, pressed on outbound
    /// calls before the agent speaks (`MenuPathStep`); nil: the agent finds its own way.
    public var menuPath: [MenuPathStep]?
    /// Other languages the callee may answer in ("en", "ko"): each utterance is heard in the one
    /// it sounds like, and the agent speaks it from then on. Nil: `language` only.
    public var languages: [String]?
    /// The questions (and purpose, closing) in each of `languages`, for the local engine, which
    /// cannot translate; LLM engines need none.
    public var translations: [String: ConversationTranslation]?
    /// Takes the line's noise out of the caller's audio before it is heard (DeepFilterNet3) on
    /// these calls, or not; nil: `engine.noise_suppression`.
    public var noiseSuppression: Bool?
    public var maxDuration: Int?
    public var retryOnNoAnswer: Bool?
    public var maxRetries: Int?
    /// The operator's tools the agent may call on these calls (HTTP requests, see `ToolDefinition`).
    public var tools: [ToolDefinition]?
    /// MCP servers whose tools the agent may call on these calls.
    public var mcpServers: [MCPServerDeclaration]?
    /// Knowledge collections the agent searches on these calls (`/api/knowledge`).
    public var knowledge: [String]?
    /// A branching conversation instead of a fixed list of questions; its `ask` steps become the
    /// template's `questions` when saved.
    public var flow: Flow?
    /// What to learn from each call once it ends (`CallAnalysisDispatcher`); nil: no analysis.
    public var analysis: AnalysisSpec?
    /// Defaults for variables a call does not give.
    public var variables: [String: String]
    public var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id, version, name, purpose, questions, greeting, closing, language, voice, variables
        case engineMode = "engine_mode", botURL = "bot_url", keypad, maxDuration = "max_duration", retryOnNoAnswer = "retry_on_no_answer", maxRetries = "max_retries"
        case machineDetection = "machine_detection", voicemailMessage = "voicemail_message", transferTo = "transfer_to", menuPath = "menu_path", languages, translations, noiseSuppression = "noise_suppression", tools, mcpServers = "mcp_servers", knowledge, flow, analysis
        case createdAt = "created_at"
    }

    public init(id: String = Self.newID(), version: Int = 1, name: String, purpose: String, questions: [String], greeting: String? = nil,
                closing: String? = nil, language: String? = nil, voice: String? = nil, engineMode: String? = nil, botURL: String? = nil, keypad: [String: String]? = nil, maxDuration: Int? = nil,
                retryOnNoAnswer: Bool? = nil, maxRetries: Int? = nil, variables: [String: String] = [:], flow: Flow? = nil, analysis: AnalysisSpec? = nil, createdAt: Date = Date()) {
        self.id = id
        self.version = version
        self.name = name
        self.purpose = purpose
        self.questions = questions
        self.greeting = greeting
        self.closing = closing
        self.language = language
        self.voice = voice
        self.engineMode = engineMode
        self.botURL = botURL
        self.keypad = keypad
        self.maxDuration = maxDuration
        self.retryOnNoAnswer = retryOnNoAnswer
        self.maxRetries = maxRetries
        self.variables = variables
        self.flow = flow
        self.analysis = analysis
        self.createdAt = createdAt
    }

    public static func newID() -> String { "tp-" + String(format: "%08x", UInt32.random(in: .min ... .max)) }

    /// Placeholders the server fills itself in the greeting and closing.
    public static let builtInPlaceholders: Set<String> = ["display_name", "purpose"]

    /// Every problem at once: empty fields, too many questions, unknown engine mode.
    public func validated(engineModes: [String]) throws(ValidationError) -> CallTemplate {
        var t = self
        var problems: [ValidationError.Field] = []
        t.name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        t.purpose = purpose.trimmingCharacters(in: .whitespacesAndNewlines)
        t.questions = questions.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        if let flow {
            // The flow's questions, in the order written: what the result's answers list.
            let problems = flow.problems()
            guard problems.isEmpty else { throw ValidationError(fields: problems.map { .init(name: $0.path, message: $0.message) }) }
            let asked = flow.asks.compactMap(\.ask)
            if !t.questions.isEmpty, t.questions != asked {
                throw ValidationError(fields: [.init(name: "questions", message: "a template with a flow takes its questions from the flow's ask steps: leave questions empty")])
            }
            t.questions = asked
            // A tool step calls one of the template's own tools (not one run after the call), or a
            // tool of one of its MCP servers (`<server>_<tool>`: listed when the call starts; one
            // the server no longer has fails the step, which then goes where `on_error` says).
            let callable = Set((tools ?? []).filter { !$0.onEnd }.map(\.name))
            let servers = (mcpServers ?? []).map { $0.name + "_" }
            let declared = { (name: String) in callable.contains(name) || servers.contains { name.hasPrefix($0) && name.count > $0.count } }
            if let step = flow.steps.first(where: { $0.tool.map { !declared($0) } ?? false }) {
                throw ValidationError(fields: [.init(name: "flow.steps.\(step.id).tool",
                                                     message: "'\(step.tool ?? "")' is not one of the template's tools (declared in tools, not on_end, or <server>_<tool> of its mcp_servers)")])
            }
            // Variables fill questions per call; what a flow says, ends or transfers with is spoken as written.
            for step in flow.steps {
                for (key, text) in [("say", step.say), ("transfer", step.transfer), ("end", step.end)] {
                    if let text, let name = Placeholders.names(in: text).first(where: { !Self.builtInPlaceholders.contains($0) }) {
                        throw ValidationError(fields: [.init(name: "flow.steps.\(step.id).\(key)", message: "{\(name)}: variables are filled in a flow's questions only")])
                    }
                }
            }
        }
        if t.name.isEmpty || t.name.count > 100 { problems.append(.init(name: "name", message: "must be 1 to 100 characters")) }
        if t.purpose.isEmpty || t.purpose.count > TextLimits.purpose { problems.append(.init(name: "purpose", message: "must be 1 to 1000 characters")) }
        // No questions: a line that only answers callers from its knowledge collections.
        let fewest = (knowledge ?? []).isEmpty ? 1 : 0
        if !(fewest...20).contains(t.questions.count) || t.questions.contains(where: \.isEmpty) {
            problems.append(.init(name: "questions", message: "must hold 1 to 20 questions, none empty" + (fewest == 1 ? " (or none, with knowledge collections to answer from)" : "")))
        }
        if let mode = engineMode, !engineModes.contains(mode) {
            problems.append(.init(name: "engine_mode", message: "must be one of \(engineModes.joined(separator: ", "))"))
        }
        if let url = botURL, let problem = VoiceBridgeConfig.botURLProblem(url) { problems.append(.init(name: "bot_url", message: problem)) }
        if let keys = keypad, keys.contains(where: { !PhoneMenu.areKeys($0.key, atMost: 1) || $0.value.trimmingCharacters(in: .whitespaces).isEmpty }) {
            problems.append(.init(name: "keypad", message: "maps single keys (0–9, *, #) to the words each stands for, e.g. {\"1\": \"yes\"}"))
        }
        if let action = machineDetection, VoiceBridgeConfig.Outbound.MachineDetection.Action(rawValue: action) == nil {
            problems.append(.init(name: "machine_detection", message: "must be off, hangup or leave_message"))
        }
        if let target = transferTo, let problem = VoiceBridgeConfig.transferTargetProblem(target) {
            problems.append(.init(name: "transfer_to", message: problem))
        }
        if let path = menuPath, let problem = MenuPathStep.problem(in: path) { problems.append(.init(name: "menu_path", message: problem)) }
        problems += languageSwitchProblems(questions: t.questions)
        problems += TextLimits.problems([("greeting", greeting, TextLimits.greeting), ("closing", closing, TextLimits.closing),
                                         ("voice", voice, TextLimits.voice), ("bot_url", botURL, TextLimits.url),
                                         ("transfer_to", transferTo, TextLimits.transferTarget),
                                         ("voicemail_message", voicemailMessage, TextLimits.voicemailMessage)]
                                        + t.questions.enumerated().map { ("questions.\($0.offset)", $0.element, TextLimits.question) }
                                        + (keypad ?? [:]).sorted { $0.key < $1.key }.map { ("keypad.\($0.key)", $0.value, TextLimits.keypadMeaning) }
                                        + variables.sorted { $0.key < $1.key }.map { ("variables.\($0.key)", $0.value, TextLimits.variableValue) })
        if let language, !OutboundCallRequest.isLanguageCode(language) { problems.append(.init(name: "language", message: "must be a language code such as en or ko")) }
        if let d = maxDuration, !(10...3600).contains(d) { problems.append(.init(name: "max_duration", message: "must be between 10 and 3600 seconds")) }
        if let r = maxRetries, !(0...10).contains(r) { problems.append(.init(name: "max_retries", message: "must be between 0 and 10")) }
        problems += ToolDefinition.problems(in: tools ?? []).map { .init(name: $0.field, message: $0.message) }
        problems += MCPServerDeclaration.problems(in: mcpServers ?? []).map { .init(name: $0.field, message: $0.message) }
        problems += KnowledgeCollection.problems(in: knowledge ?? []).map { .init(name: $0.field, message: $0.message) }
        problems += (analysis?.problems() ?? []).map { .init(name: $0.field, message: $0.message) }
        guard problems.isEmpty else { throw ValidationError(fields: problems) }
        return t
    }
}

/// `{name}` placeholders: any text between braces without braces or line breaks, so CSV headers
/// such as `{고객명}` or `{due date}` work as written.
public enum Placeholders {
    /// The placeholder names in `text`, in order of first appearance.
    public static func names(in text: String) -> [String] {
        var names: [String] = []
        for match in text.matches(of: /\{([^{}\n]+)\}/) where !names.contains(String(match.1)) { names.append(String(match.1)) }
        return names
    }

    /// `text` with each known placeholder replaced; unknown ones are left for `names(in:)` to report.
    public static func fill(_ text: String, with values: [String: String]) -> String {
        text.replacing(/\{([^{}\n]+)\}/) { match in values[String(match.1)] ?? String(match.0) }
    }
}

extension CallTemplate {
    /// What is wrong with `languages` and `translations`: codes of two letters (Whisper's), each
    /// translation complete, and no variables in a translation (the call keeps only its own
    /// language's text filled).
    func languageSwitchProblems(questions: [String]) -> [ValidationError.Field] {
        guard languages != nil || translations != nil else { return [] }
        let translations = translations ?? [:]
        var problems = ConversationTranslation.problems(language: language ?? "", languages: languages ?? [], translations: translations, questions: questions) {
            $0.count == 2 && OutboundCallRequest.isLanguageCode($0)
        }.map { ValidationError.Field(name: $0.field, message: $0.message) }
        if flow != nil, !translations.isEmpty {
            problems.append(.init(name: "translations", message: "a flow's steps are not translated yet: leave translations out (LLM engines translate for themselves)"))
        }
        for (code, translation) in translations.sorted(by: { $0.key < $1.key }) {
            let texts = [("purpose", translation.purpose, TextLimits.purpose), ("closing", translation.closing, TextLimits.closing)]
                + translation.questions.enumerated().map { ("questions.\($0.offset)", Optional($0.element), TextLimits.question) }
            problems += TextLimits.problems(texts.map { ("translations.\(code).\($0.0)", $0.1, $0.2) })
            for (field, text, _) in texts {
                if let text, let name = Placeholders.names(in: text).first(where: { !Self.builtInPlaceholders.contains($0) }) {
                    problems.append(.init(name: "translations.\(code).\(field)", message: "{\(name)}: variables are filled in the call's own language only"))
                }
            }
        }
        return problems
    }
}
