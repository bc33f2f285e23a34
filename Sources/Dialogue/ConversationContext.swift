import Flows
import Knowledge
import Foundation
import Tools

/// What a call is for: the input every engine and the goal tracking share.
public struct ConversationContext: Sendable, Equatable {
    public var purpose: String
    public var questions: [String]
    /// Who the agent speaks for ("ABC Company").
    public var displayName: String
    /// BCP 47-ish language tag: "en", "ko", …
    public var language: String
    public var greetingTemplate: String
    public var closingTemplate: String
    public var maxTurns: Int
    public var maxDurationSeconds: Int
    /// The engine's voice for this call; nil: the engine's configured one.
    public var voice: String?
    /// Who the call is: its id and numbers, as an external bot is told them.
    public var call = CallIdentity()
    /// A media-stream bot (`ws://` or `wss://`) that runs this call instead of the configured
    /// engine: a template's, an inbound route's or the request's `bot_url`.
    public var botURL: String?
    /// Keys the caller may press instead of answering aloud, and what each one says ("1" → "yes"):
    /// a template's `keypad`, for questions that offer keys.
    public var keypad: [String: String] = [:]
    /// Where a caller who asks for a person is transferred (a number or SIP URI); nil: nobody,
    /// and the agent does not offer it.
    public var transferTarget: String?
    /// The operator's tools on this call (a template's, a route's or the request's): offered to
    /// LLM engines beside their own, except those that run after the call (`on_end`).
    public var tools: [ToolDefinition] = []
    /// Knowledge collections the agent searches (`search_knowledge`; the local engine answers FAQ
    /// questions from them).
    public var knowledge: [String] = []
    /// A branching conversation that replaces the plain list of questions (the local engine runs
    /// it; `questions` then holds its `ask` steps' questions in order).
    public var flow: Flow?
    /// Kinds of answer the local dialogue reads back for the caller to confirm (`ReadBack`);
    /// empty: none (the server's `engine.read_back` sets them).
    public var readBack: Set<AnswerKind> = []
    /// How sure the local dialogue must be of what it heard before it stores an answer.
    public var answerConfidence = AnswerConfidence()
    /// A phone menu's keys known in advance (a template's `menu_path`), pressed by the session on
    /// an outbound call; the agent waits silently for a person meanwhile. Empty: none.
    public var menuPath: [MenuPathStep] = []
    /// Other languages the caller may switch to (a template's `languages`): the local engine hears
    /// each utterance in the one it sounds like and speaks it from then on. Empty: `language` only.
    public var languages: [String] = []
    /// The questions (and purpose, closing) in those languages, for the local engine.
    public var translations: [String: ConversationTranslation] = [:]

    /// Whether this call presses a known menu path before anyone speaks for the callee.
    public var followsMenuPath: Bool { !menuPath.isEmpty && call.direction == "outbound" }

    /// The tools that run during the conversation (a model's calls, a flow's tool steps).
    public var conversationTools: [ToolDefinition] { tools.filter { !$0.onEnd } }

    /// The operator's tools a model is offered: in a flow, only the knowledge search — the flow's
    /// tool steps are the server's to run, each at its step, so a model cannot act out of turn.
    public var modelTools: [ToolDefinition] {
        flow == nil ? conversationTools : conversationTools.filter { $0.name == KnowledgeSearchTool.name }
    }

    public struct CallIdentity: Sendable, Equatable {
        public var id = ""
        public var direction = "outbound"
        public var from = ""
        public var to = ""
        public init(id: String = "", direction: String = "outbound", from: String = "", to: String = "") {
            self.id = id
            self.direction = direction
            self.from = from
            self.to = to
        }
    }

    public init(purpose: String, questions: [String], displayName: String = "VoiceBridge", language: String = "en",
                greetingTemplate: String = "Hello, this is the AI assistant of {display_name}, calling about {purpose}.",
                closingTemplate: String = "Thank you for your time. Have a nice day.", maxTurns: Int = 20, maxDurationSeconds: Int = 300,
                voice: String? = nil) {
        self.purpose = purpose
        self.questions = questions
        self.displayName = displayName
        self.language = language
        self.greetingTemplate = greetingTemplate
        self.closingTemplate = closingTemplate
        self.maxTurns = maxTurns
        self.maxDurationSeconds = maxDurationSeconds
        self.voice = voice
    }

    /// The greeting with `{display_name}` and `{purpose}` filled in.
    public var greeting: String { filled(greetingTemplate) }

    public var closing: String { filled(closingTemplate) }

    /// `template` with the placeholders the server fills itself, `{display_name}` and `{purpose}`.
    public func filled(_ template: String) -> String {
        template.replacingOccurrences(of: "{display_name}", with: displayName).replacingOccurrences(of: "{purpose}", with: purpose)
    }
}

