import Flows
import Foundation
import Tools

/// A flow's `tool` step, run by the server whatever the engine: the call (the step's tool among
/// the call's, its arguments filled from the fields) and what its answer fills.
public enum FlowToolStep {
    /// The tool the step `id` names, and its arguments as JSON: a value that is exactly `{field}`
    /// takes the field's typed answer (true, 3, "2026-11-27T14:00"); other text has each `{field}`
    /// replaced by its answer. Nil when the call has no such tool.
    public static func call(_ id: String, context: ConversationContext, fields: [String: FlowFieldValue]) -> (tool: ToolDefinition, arguments: String)? {
        guard let step = context.flow?[id], let name = step.tool, let tool = context.conversationTools.first(where: { $0.name == name }) else { return nil }
        var arguments: [String: JSONValue] = [:]
        for (key, template) in step.arguments ?? [:] {
            if template.hasPrefix("{"), template.hasSuffix("}"), template.dropFirst().dropLast().allSatisfy({ $0 != "{" && $0 != "}" }) {
                arguments[key] = fields[String(template.dropFirst().dropLast())]?.json ?? .null
            } else {
                var text = template
                for (name, value) in fields { text = text.replacingOccurrences(of: "{\(name)}", with: value.answer ?? "") }
                arguments[key] = .string(text)
            }
        }
        return (tool, JSONValue.object(arguments).serialized)
    }

    /// What the tool's answer fills (`results`: field → the answer's key; a boolean is yes/no, a
    /// number a number, text free text; missing, the field is unclear) and whether it failed.
    public static func fields(from outcome: ToolRunner.Outcome, step: FlowStep) -> (fields: [String: FlowFieldValue], failed: Bool) {
        let answer = try? JSONValue.parse(outcome.answer)
        let failed = outcome.record.status != .ok || answer?["error"] != nil
        var fields: [String: FlowFieldValue] = [:]
        for (field, key) in step.results ?? [:] {
            fields[field] = switch answer?[key] {
            case .bool(let flag)?: FlowFieldValue(kind: .yesNo, status: .answered, answer: flag ? "yes" : "no")
            case .integer(let n)?: FlowFieldValue(kind: .number, status: .answered, answer: String(n))
            case .number(let n)?: FlowFieldValue(kind: .number, status: .answered, answer: String(n))
            case .string(let text)?: FlowFieldValue(kind: .freeText, status: .answered, answer: text)
            default: FlowFieldValue(kind: .freeText, status: .unclear)
            }
        }
        return (fields, failed)
    }

    /// Runs the tool step the walker stopped at (the engine's runner; nil: the call has no tool
    /// of that name, which fails the step) and walks on.
    public static func run(_ stop: FlowWalker.Stop, tracker: inout TaskTracker, outcome: ToolRunner.Outcome, context: ConversationContext) -> FlowWalker.Stop? {
        guard case .tool = stop, var walker = tracker.flow, let step = context.flow?[stop.step] else { return nil }
        let (fields, failed) = fields(from: outcome, step: step)
        let next = walker.toolFinished(step.id, fields: fields, failed: failed)
        tracker.flow = walker
        FlowGuide.enter(next, tracker: &tracker, context: context)
        return next
    }

    /// The outcome of a tool step whose tool the call does not have.
    public static func missing(_ stop: FlowWalker.Stop, context: ConversationContext) -> ToolRunner.Outcome {
        let name = context.flow?[stop.step]?.tool ?? stop.step
        return ToolRunner.unknownTool(name, arguments: "{}")
    }
}
