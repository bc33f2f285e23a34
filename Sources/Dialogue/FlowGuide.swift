import Flows
import Foundation

/// A flow run by a language model, one step at a time: the model sees only the current step's
/// instructions and moves on by calling `next_step` with what the callee said; the server checks
/// the answer against the step's kind, records it, and walks the graph itself — so a model cannot
/// skip a step or take a branch the answers do not lead to.
public enum FlowGuide {
    public static let toolName = "next_step"
    public static let description = "Record the callee's answer to the current step's question (or that they refused, or no answer came after asking twice) and get the next step."
    public static let parameters = """
    {"type":"object","properties":{"status":{"type":"string","enum":["answered","refused","unclear"]},\
    "value":{"type":"string","description":"the answer, normalised as the step says"}},"required":["status"]}
    """

    /// What the model should do at `stop`, as the prompt's "Current step" section.
    public static func step(_ stop: FlowWalker.Stop, in context: ConversationContext, saidBefore: [String] = []) -> String {
        guard let flow = context.flow, let step = flow[stop.step] else { return "Thank the callee, say \"\(context.closing)\" and call `end_call`." }
        let first = (saidBefore + stop.said).map { "First say: \"\(context.filled($0))\". " }.joined()
        switch stop {
        case .tool:   // the server runs tools before the model hears of the step; never shown
            return first + "Then wait a moment."
        case .ask:
            let question = flow.asks.firstIndex { $0.id == step.id }.flatMap { context.questions.indices.contains($0) ? context.questions[$0] : nil } ?? step.ask ?? ""
            return first + "Then ask: \"\(question)\". When the callee has answered, call `\(toolName)` with status answered and value \(valueRule(step)); "
                + "if they decline, with status refused; if no answer comes after asking twice, with status unclear. Do not ask anything else before calling it."
        case .transfer:
            return first + "Then say: \"\(context.filled(step.transfer ?? ""))\" and call `transfer_call`. If nobody takes the call, its result gives the next step."
        case .end:
            return first + "Then say: \"\(step.end.map(context.filled) ?? context.closing)\" and call `end_call`."
        }
    }

    static func valueRule(_ step: FlowStep) -> String {
        switch step.kind ?? .freeText {
        case .yesNo: "yes or no"
        case .choice: "exactly one of: " + (step.choices ?? []).joined(separator: ", ")
        case .number: "the number in digits (an amount: its digits, a space, then its ISO 4217 currency code)"
        case .dateTime: "the date and time as YYYY-MM-DDTHH:MM"
        case .phoneNumber: "the number in international form: + then the country code and the number, digits only"
        case .name: "the name as said"
        case .freeText: "the callee's answer in a few words"
        }
    }

    /// The model called `next_step` at `stop` with `arguments`: the answer recorded in `tracker`
    /// and the next stop, or what is wrong with the call (the model is told, and stays).
    public static func advance(_ arguments: String, tracker: inout TaskTracker, context: ConversationContext) -> Result<FlowWalker.Stop, Refusal> {
        guard let flow = context.flow, let stop = tracker.flow?.stop, case .ask = stop, let step = flow[stop.step], let field = step.field, var walker = tracker.flow else {
            return .failure(Refusal(message: "the current step asks nothing: follow its instructions (end_call or transfer_call)"))
        }
        let object = (try? JSONSerialization.jsonObject(with: Data(arguments.utf8))) as? [String: Any] ?? [:]
        let kind = step.kind ?? .freeText
        switch object["status"] as? String {
        case "answered":
            let said = (object["value"] as? String ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard let value = normalised(said, for: step) else {
                return .failure(Refusal(message: "value must be \(valueRule(step)); ask again if the answer was not clear"))
            }
            tracker.update(questionID: field, status: .answered, answerText: said, summary: value, confidence: 0.9)
            walker.record(field, FlowFieldValue(kind: kind, status: .answered, answer: value))
        case "refused":
            tracker.update(questionID: field, status: .refused, answerText: nil, summary: nil, confidence: 0.8)
            walker.record(field, FlowFieldValue(kind: kind, status: .refused))
        case "unclear":
            tracker.update(questionID: field, status: .unclear, answerText: nil, summary: nil, confidence: 0.3)
            walker.record(field, FlowFieldValue(kind: kind, status: .unclear))
        default:
            return .failure(Refusal(message: "status must be answered, refused or unclear"))
        }
        let next = walker.next(after: step.id)
        tracker.flow = walker
        enter(next, tracker: &tracker, context: context)
        return .success(next)
    }

    /// The first stop, entered.
    public static func begin(tracker: inout TaskTracker, context: ConversationContext) -> FlowWalker.Stop? {
        guard var walker = tracker.flow else { return nil }
        let stop = walker.begin()
        tracker.flow = walker
        enter(stop, tracker: &tracker, context: context)
        return stop
    }

    /// A transfer the flow asked for reached nobody: the flow goes on at the step's `next`.
    public static func transferFailed(tracker: inout TaskTracker, context: ConversationContext) -> FlowWalker.Stop? {
        guard var walker = tracker.flow, let stop = walker.stop, case .transfer = stop else { return nil }
        let next = walker.next(after: stop.step)
        tracker.flow = walker
        enter(next, tracker: &tracker, context: context)
        return next
    }

    /// An ask stop's question counts as asked (a loop coming back asks it afresh).
    static func enter(_ stop: FlowWalker.Stop, tracker: inout TaskTracker, context: ConversationContext) {
        guard case .ask = stop, let field = context.flow?[stop.step]?.field,
              let index = tracker.answers.firstIndex(where: { $0.questionID == field }) else { return }
        if tracker.answers[index].timesAsked > 0 { tracker.reopen(index) }
        tracker.asked(index)
    }

    /// The answer in the form the step's kind takes, or nil when it is not one.
    static func normalised(_ value: String, for step: FlowStep) -> String? {
        guard !value.isEmpty else { return nil }
        let lowered = value.lowercased()
        switch step.kind ?? .freeText {
        case .yesNo:
            return ["yes", "y", "true", "네", "예"].contains(lowered) ? "yes" : ["no", "n", "false", "아니요", "아니오"].contains(lowered) ? "no" : nil
        case .choice:
            return step.choices?.first { $0.caseInsensitiveCompare(value) == .orderedSame }
        case .number:
            let number = value.prefix { $0.isNumber || $0 == "." || $0 == "-" }
            guard Double(number) != nil else { return nil }
            let rest = value.dropFirst(number.count).trimmingCharacters(in: .whitespaces)
            return rest.isEmpty ? String(number) : "\(number) \(rest.uppercased())"
        default:
            return value
        }
    }

    public struct Refusal: Error, Equatable {
        public var message: String
        public var json: String { #"{"error":"\#(message.replacingOccurrences(of: "\"", with: "'"))"}"# }
    }

    /// What the model hears back from `next_step`: the next step's instructions.
    public static func output(_ next: FlowWalker.Stop, context: ConversationContext, saidBefore: [String] = []) -> String {
        let text = step(next, in: context, saidBefore: saidBefore)
        let data = (try? JSONSerialization.data(withJSONObject: ["ok": true, "next_step": text], options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
