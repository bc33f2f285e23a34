import Foundation
import Flows
import Tools

/// Instructions for LLM-backed engines, following seed 000 §5.2's conversation rules.
public enum PromptBuilder {
    /// How a key press reaches a model: a user line, as the caller's own words would.
    public static func keyPress(_ digit: Character) -> String { "[DTMF \(digit)]" }

    public static func instructions(for context: ConversationContext, flowStep: FlowWalker.Stop? = nil) -> String {
        if context.flow != nil { return flowInstructions(for: context, step: flowStep) }
        let questions = context.questions.enumerated().map { "q\($0.offset + 1). \($0.element)" }.joined(separator: "\n")
        return """
        You are a phone assistant calling on behalf of \(context.displayName).

        ## Purpose of the call
        \(context.purpose)

        ## Questions to confirm
        \(questions)

        ## Conversation rules
        1. First introduce yourself and state the purpose of the call briefly. Open with: "\(context.greeting)"
        2. Ask the questions one at a time, naturally, in order.
        3. If an answer is unclear, politely ask once more. Read back what is easily misheard — phone numbers digit by
           digit, names, dates with their time, a number that could be a teen or a tens ("fifteen" or "fifty") — and ask
           "Is that right?"; if the person corrects you, use the correction.
        4. When every question has an answer, thank the person, say "\(context.closing)" and end the call.
        5. If the person declines to answer a question, report it as refused and go on to the next one. If they ask
           to be called back later, or get angry, apologise, thank them and end the call politely.
        6. \(languageRule(context))
        7. Use a polite, respectful register.
        8. Keep every turn short: this is a phone call.
        9. A line "[DTMF 1]" means the caller pressed that key on the phone's keypad: take it as their
           answer where a question offers keys ("press 1 for yes"), otherwise acknowledge it briefly.\(transferRule(context))\(toolRule(context))\(screenerRule(context))

        ## Reporting progress
        After each answer call the tool `update_task_state` with the question id (q1, q2, …), its status
        (answered, unclear or refused), the caller's words, a short summary and your confidence (0–1).
        When the conversation is over call `end_call`. If you cannot call tools, write the same JSON
        between [TASK_STATE] and [/TASK_STATE]; that text is never spoken.
        """
    }

    /// A flow's call: the model sees the current step only and moves on with `next_step`.
    static func flowInstructions(for context: ConversationContext, step: FlowWalker.Stop?) -> String {
        """
        You are a phone assistant calling on behalf of \(context.displayName).

        ## Purpose of the call
        \(context.purpose)

        ## Conversation rules
        1. The call follows a script, one step at a time. Do exactly what the current step says; never ask a question
           the current step does not ask, and never skip ahead.
        2. Open the call with: "\(context.greeting)"
        3. After the callee answers the current step's question, call `\(FlowGuide.toolName)`: its result gives the next step.
           If its result has an "error", put the question again and call it once more.
        4. If the callee asks to be called back later, or gets angry, apologise, thank them, say "\(context.closing)" and call `end_call`.
        5. \(languageRule(context)) Speak politely, and keep every turn short: this is a phone call.
        6. A line "[DTMF 1]" means the caller pressed that key on the phone's keypad.\(transferRule(context))\(toolRule(context))\(screenerRule(context))

        ## Current step
        \(step.map { FlowGuide.step($0, in: context) } ?? "Greet the callee.")
        """
    }

    /// Rule 10, when the call has someone to hand a caller to.
    static func transferRule(_ context: ConversationContext) -> String {
        guard context.transferTarget != nil else { return "" }
        return """

        10. If the person asks to speak to a person (a human, an operator, a representative, 상담원), say you will
            connect them now and call `transfer_call` with the reason. If its result says nobody was reached,
            apologise, say so, and go on with the questions.
        """
    }

    /// Rule 12, on an outbound call: a call screener answering for the callee.
    static func screenerRule(_ context: ConversationContext) -> String {
        guard context.call.direction == "outbound" else { return "" }
        return """

        12. If a call screener or assistant answers for the person (it asks who is calling and why, on their behalf),
            answer in one sentence — "\(context.filled(DialoguePhrases.of(context.language).introduction))" — then say
            nothing until the person speaks; greet them as at the start. If the screener says the person cannot take
            the call, say "\(context.closing)" and call `end_call` with the reason "\(CallScreener.Passage.screenedOut.rawValue)".
        \(menuRule(context))
        """
    }

    /// Rule 13: a phone menu the model finds its way through, or one whose keys are known.
    static func menuRule(_ context: ConversationContext) -> String {
        guard !context.followsMenuPath else {
            return """
            13. This line answers with a phone menu whose keys are pressed for you (\(context.menuPath.map(\.keys).joined(separator: ", then "))):
                say nothing and do not press keys through the menu and any hold; when a person speaks, greet them as at the start.
            """
        }
        return """
        13. If a phone menu answers ("for billing, press 1 …"), say nothing: call `\(pressKeysTool)` with the key of the
            option that leads toward the purpose of the call (or, if none does, to a person) — or, where the menu asks
            you to say an option, say only its words — and wait silently for the next menu or the person; greet the
            person as at the start. If no option leads there, call `end_call` with
            the reason "\(MenuPassage.State.noRoute.rawValue)".
        """
    }

    /// Rule 11, when the operator gave the agent tools.
    static func toolRule(_ context: ConversationContext) -> String {
        let names = context.modelTools.map { "`\($0.name)`" }
        guard !names.isEmpty else { return "" }
        return """

        11. You have tools to look things up and act: \(names.joined(separator: ", ")). Call one whenever the caller's
            request needs it; never invent what a tool would tell you. If a tool's result has an "error", say plainly
            that you could not do it right now and offer to pass the request on.\(context.knowledge.isEmpty ? "" : """

            When the caller asks about the operator (hours, prices, policies, directions…), call `search_knowledge`
            first and answer only from the passages it returns, briefly; if none answers it, say you will pass the
            question on.
        """)
        """
    }

    /// The tools an LLM engine offers on this call: name, description, JSON schema of the arguments.
    public static func tools(for context: ConversationContext) -> [(name: String, description: String, parameters: String)] {
        var tools = [context.flow == nil
                        ? ("update_task_state", "Record the caller's answer to one of the questions (or that it was unclear or refused).", updateTaskStateParameters)
                        : (FlowGuide.toolName, FlowGuide.description, FlowGuide.parameters),
                     ("end_call", "End the call after the closing words.", endCallParameters)]
        // A flow's transfer step asks for the tool even without a target: a transfer that reaches
        // nobody comes back as its result, and the flow goes on at the step's next.
        if context.transferTarget != nil || context.flow?.steps.contains(where: { $0.transfer != nil }) == true {
            tools.append(("transfer_call", "Hand the caller to a person, after saying you will connect them.", transferCallParameters))
        }
        if context.call.direction == "outbound" {
            tools.append((pressKeysTool, "Press keys on the phone's keypad: a phone menu's option, said nothing aloud.", pressKeysParameters))
        }
        return tools + context.modelTools.map { ($0.name, $0.description, $0.parameters.serialized) }
    }

    /// What a transfer that reached nobody reports back to the model as the tool's result.
    public static func transferResult(_ outcome: TransferOutcome, nextStep: String? = nil) -> String {
        guard let nextStep else { return #"{"transferred":false,"outcome":"\#(outcome.rawValue)"}"# }
        let result: [String: Any] = ["transferred": false, "outcome": outcome.rawValue, "next_step": nextStep]
        return String(decoding: (try? JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
    }

    /// Rule 6: the call's language, or the languages its caller may switch between.
    static func languageRule(_ context: ConversationContext) -> String {
        let languages = context.spokenLanguages
        guard languages.count > 1 else { return "Speak only \(languageName(context.language))." }
        return "Start in \(languageName(context.language)). The caller may speak " + languages.map(languageName).joined(separator: " or ")
            + ": answer in the language of their last words, and report their answers as they said them."
    }

    static func languageName(_ code: String) -> String {
        switch code.lowercased().prefix(2) {
        case "en": "English"
        case "ko": "Korean (한국어)"
        case "ja": "Japanese"
        case "es": "Spanish"
        case "de": "German"
        case "fr": "French"
        case "ru": "Russian"
        default: code
        }
    }

    /// JSON schemas of the two tools every LLM engine offers.
    public static let updateTaskStateParameters = """
    {"type":"object","properties":{"question_id":{"type":"string"},"status":{"type":"string","enum":["answered","unclear","refused"]},\
    "answer_text":{"type":"string"},"answer_summary":{"type":"string"},"confidence":{"type":"number"}},\
    "required":["question_id","status"]}
    """
    public static let endCallParameters = """
    {"type":"object","properties":{"reason":{"type":"string"}}}
    """
    /// The key-press tool of an outbound call (phone menus), and what it accepts.
    public static let pressKeysTool = "press_keys"
    public static let pressKeysParameters = """
    {"type":"object","properties":{"keys":{"type":"string","pattern":"^[0-9*#]{1,8}$","description":"the keys, e.g. \\"2\\""}},"required":["keys"]}
    """

    /// What a `press_keys` call is answered: the keys pressed, or why none were (`keys` nil).
    public static func pressKeysOutput(_ keys: String?) -> String {
        keys.map { #"{"pressed":"\#($0)"}"# } ?? #"{"error":"keys: 1 to 8 of 0-9, * and #"}"#
    }

    /// The keys a `press_keys` call asks for, checked: 1–8 of 0–9, * and #; nil: none valid.
    public static func keys(inPressKeysArguments arguments: String) -> String? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(arguments.utf8))) as? [String: Any],
              let keys = object["keys"] as? String, PhoneMenu.areKeys(keys, atMost: 8) else { return nil }
        return keys
    }

    public static let transferCallParameters = """
    {"type":"object","properties":{"reason":{"type":"string","description":"why the caller wants a person"}},"required":["reason"]}
    """
}
